// Package stripeclient builds the back office's one stripe-go v85 client: at the API
// version stripe-go v85 is pinned to, through STRIPE_API_BASE when it is set.
package stripeclient

import (
	"os"
	"strings"

	"github.com/stripe/stripe-go/v85"
)

// New returns a client for STRIPE_SECRET_KEY.
func New() *stripe.Client {
	key := os.Getenv("STRIPE_SECRET_KEY")
	base := strings.TrimRight(os.Getenv("STRIPE_API_BASE"), "/")
	if base == "" {
		return stripe.NewClient(key)
	}
	config := &stripe.BackendConfig{URL: stripe.String(base)}
	return stripe.NewClient(key, stripe.WithBackends(stripe.NewBackendsWithConfig(config)))
}

// OldAPIVersion is what the services ran before the upgrade.
const OldAPIVersion = "2020-08-27"
