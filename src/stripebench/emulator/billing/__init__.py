"""The billing engine behind subscriptions, invoices and test clocks.

Resource modules (`resources/subscriptions.py`, `resources/invoices.py`, ...) hold the
API surface; this package holds the arithmetic and state machines they share: periods
and prorations (`timing`), creating and changing subscriptions (`creating`, `changes`,
`subscribing`), invoice building and collection (`invoicing`, `collect`), and test clock
advancement (`advance`). This package never imports the billing endpoint modules.
"""
