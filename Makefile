.PHONY: setup run test lint serve schema proof

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
	.venv/bin/pytest -n 2 -m "not proof_tier" tests

schema:
	.venv/bin/python scripts/gen_schema.py

# The slower tier of the graders' proof (docs/tasks.md, "Proof"): every task's oracle and
# mutants three times each (identical subscores), every alternative once. TASKS=ids to
# narrow it. Record the last result and its time in docs/tasks.md.
proof: setup
	.venv/bin/pytest -n 2 -m proof_tier tests
	@start=$$(date +%s); .venv/bin/stripebench tasks check --variants --repeat 3 $(TASKS); \
	  code=$$?; echo "make proof: exit $$code after $$(( $$(date +%s) - start ))s"; exit $$code
