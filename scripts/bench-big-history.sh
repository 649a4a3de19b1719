#!/usr/bin/env bash
# A big history in the real window: 10,000 conversations and 1,000,000 messages; start to a populated sidebar,
# search over English and Chinese queries (in the page and in the store alone), the database's size and the app's
# memory, reported and never asserted. Builds the app like scripts/test-e2e.sh, then runs
# tests/e2e/examples/big_history_bench.rs under Xvfb. The seeded database is cached under the cargo target
# folder's bench-data/. Arguments go to the benchmark: --conversations N (default 10000), --messages N (per
# conversation, default 100), --runs N (default 1), --repeats N (per query, default 5), --store-only 1 (the store's
# search alone, without the app).
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
source "$REPO_ROOT/scripts/lib/setup.sh"
source "$REPO_ROOT/scripts/lib/build.sh"

setup_tests
run_app_example big_history_bench "$@"
