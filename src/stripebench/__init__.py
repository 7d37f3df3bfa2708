"""stripebench: an offline, reproducible benchmark for AI agents that build Stripe integrations."""

__version__ = "0.1.0"
