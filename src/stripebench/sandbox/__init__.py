"""The rooms trials run in, at the bottom of the harness: the Sandbox protocol and process
handling (`base`), the unisolated local room (`local`), host-side file access that never
follows what a trial planted (`safe_files`, `sockets`). The bubblewrap room with Stripe's
host names routed inside lives with that routing (`stripebench.routing.bwrap`)."""
