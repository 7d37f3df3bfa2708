module backoffice

go 1.23

require github.com/stripe/stripe-go/v85 v85.0.0
