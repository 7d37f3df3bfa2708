.PHONY: setup run test lint serve schema

setup:
	./scripts/setup.sh

# The main job: run the benchmark (oracle agent unless a model key is set).
run: setup
	.venv/bin/stripebench run --attempts 3 --parallel 2

serve: setup
	.venv/bin/stripebench emulator serve

lint:
	.venv/bin/ruff check src tests benchmarks scripts
	.venv/bin/mypy

test: setup lint
	.venv/bin/pytest -n 2 tests

schema:
	.venv/bin/python scripts/gen_schema.py
