module backoffice

go 1.23

require github.com/stripe/stripe-go/v72 v72.122.0
