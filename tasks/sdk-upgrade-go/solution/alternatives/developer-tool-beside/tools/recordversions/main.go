// Command recordversions prints each service's /version, to compare with what they
// reported on stripe-go v72 (API version "2020-08-27"). A developer's tool: go run
// ./tools/recordversions. It calls the services only, never Stripe.
package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
)

func main() {
	for _, name := range []string{"PAYMENTS_URL", "INVOICES_URL", "SUBSCRIPTIONS_URL"} {
		resp, err := http.Get(os.Getenv(name) + "/version")
		if err != nil {
			fmt.Println(name, err)
			continue
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Println(name, string(body))
	}
}
