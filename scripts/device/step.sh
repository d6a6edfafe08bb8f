# Sourced by the device scripts: `step NAME SECONDS CMD...` runs CMD with a time limit, appends its
# stderr to $OUT/device.log, records "NAME rc=.. Ns" in SUMMARY and counts failures in FAILED.
# With STEPS="a b" set, only the steps named run.
FAILED=0
declare -a SUMMARY=()

step() {
    local name="$1" limit="$2"; shift 2
    if [ -n "${STEPS:-}" ] && [[ " $STEPS " != *" $name "* ]]; then return 0; fi
    echo "=== $name: $*" >> "$OUT/device.log"
    local start=$SECONDS
    timeout "$limit" "$@" 2>>"$OUT/device.log"
    local rc=$?
    SUMMARY+=("$name rc=$rc $((SECONDS - start))s")
    if [ "$rc" -ne 0 ]; then FAILED=$((FAILED + 1)); fi
    return 0
}
