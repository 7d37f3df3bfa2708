"""The harness: materialize a task, give it an emulator account, run an agent, grade, record."""
