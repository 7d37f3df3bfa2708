"""A task's services in a sandbox: their ports, the variables naming them, starting
them, and the webhook routes to them (the agent phase and the grading room both use
these)."""

from __future__ import annotations

from .emulator import Emulator, free_port
from .sandbox import Sandbox
from .task import Task


def service_ports(task: Task, sandbox_kind: str) -> dict[str, int]:
    """Each service's port in this trial.

    A bubblewrap sandbox has its own loopback, so the declared port is free; a local
    one shares the machine's, so each trial gets fresh ports for parallel trials.
    """

    return {s.name: (s.port if sandbox_kind != "local" and s.port else free_port())
            for s in task.services}


def service_env(task: Task, ports: dict[str, int]) -> dict[str, str]:
    env = {}
    for service in task.services:
        key = "".join(c if c.isalnum() else "_" for c in service.name).upper()
        env[f"{key}_PORT"] = str(ports[service.name])
        env[f"{key}_URL"] = f"http://127.0.0.1:{ports[service.name]}"
    return env


def start_services(sandbox: Sandbox, task: Task, ports: dict[str, int],
                   hide: tuple[str, ...] = ()) -> None:
    for service in task.services:
        port = ports[service.name]
        ready_url = service.ready_url.replace("{port}", str(port)) if service.ready_url \
            else None
        sandbox.start_service(service.name, f"export PORT={port}; {service.command}",
                              ready_url=ready_url,
                              ready_port=port if service.port else None,
                              timeout=task.services_timeout, hide=hide,
                              unprivileged=service.unprivileged)


def route_webhooks(emulator: Emulator, account_id: str, sandbox: Sandbox,
                   ports: dict[str, int]) -> None:
    """Webhooks reach the task's declared services, inside this sandbox, and nothing
    else (the emulator runs on the host: any other URL would be a way out)."""
    emulator.route_webhooks(account_id, {port: sandbox.service_address(port)
                                         for port in ports.values()})
