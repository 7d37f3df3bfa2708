"""The rooms trials run in, at the bottom of the harness: the Sandbox protocol and process
handling (`base`), the unisolated local room (`local`), the bubblewrap room's namespaces,
mounts and tmpfs sizes as argument lists (`room`), one cgroup per sandbox (`cgroups`),
the workdir's disk quota (`disk`), the numbers behind them (`limits`), host-side file
access that never follows what a trial planted (`safe_files`, `sockets`). The bubblewrap
sandbox that runs `room`'s arguments, with Stripe's host names routed inside, lives with
that routing (`stripebench.routing.bwrap`)."""
