#!/usr/bin/env bash
# The entry script of action.yml (the fortune-tck GitHub Action); any CI can run it. It runs the suite with the
# action's inputs, which GitHub passes as environment variables:
#   INPUT_TARGET   the target file describing the implementation under test (required)
#   INPUT_TAGS     a tag expression selecting scenarios (optional)
#   INPUT_EXPECT   an expectations file: the known differences (optional)
#   INPUT_REPORTS  the reports folder (default fortune-tck-reports)
#   TCK            the tck binary (default: tck on the PATH)
# and writes, when GitHub gives their files:
#   GITHUB_OUTPUT        result=passed|failed|error|interrupted, reports=FOLDER, exit-code=N
#   GITHUB_STEP_SUMMARY  the run's summary.md: profiles, what fails the run by stable ID, the badge
# It exits with tck's status: 0 passed (or every difference expected), 1 failed, 2 bad input, 3 the run could
# not be done.
set -uo pipefail

tck="${TCK:-tck}"
target="${INPUT_TARGET:-}"
reports="${INPUT_REPORTS:-fortune-tck-reports}"

outputs() {
  if [ -n "${GITHUB_OUTPUT:-}" ]; then
    printf 'result=%s\nreports=%s\nexit-code=%s\n' "$1" "$reports" "$2" >>"$GITHUB_OUTPUT"
  fi
}

if [ -z "$target" ]; then
  echo "::error title=fortune-tck::the input target is required: the target file that describes the implementation (tck validate checks one)"
  outputs error 2
  exit 2
fi
if ! command -v "$tck" >/dev/null 2>&1; then
  echo "::error title=fortune-tck::no tck binary at '$tck': build it (go build ./cmd/tck) or set TCK"
  outputs error 3
  exit 3
fi

args=(run --target "$target" --reports "$reports" --format progress)
if [ -n "${INPUT_TAGS:-}" ]; then
  args+=(--tags "$INPUT_TAGS")
fi
if [ -n "${INPUT_EXPECT:-}" ]; then
  args+=(--expect "$INPUT_EXPECT")
fi

errors="$(mktemp)"
trap 'rm -f "$errors"' EXIT
echo "tck ${args[*]}"
"$tck" "${args[@]}" 2>"$errors"
status=$?
cat "$errors" >&2

case "$status" in
  0) result=passed ;;
  1) result=failed ;;
  130) result=interrupted ;;
  *) result=error ;;
esac
outputs "$result" "$status"

if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  if [ -f "$reports/summary.md" ] && [ "$status" -le 1 ]; then
    cat "$reports/summary.md" >>"$GITHUB_STEP_SUMMARY"
  else
    {
      echo "## fortune-tck: the run could not be done (exit $status)"
      echo
      echo '```'
      head -c 4000 "$errors"
      echo '```'
      echo
      echo "The reports folder ($reports) holds an index.html that says why."
    } >>"$GITHUB_STEP_SUMMARY"
  fi
fi
if [ "$status" -eq 1 ]; then
  echo "::error title=fortune-tck::the run failed: see the job summary, or $reports/index.html, for the scenarios by stable ID"
fi
exit "$status"
