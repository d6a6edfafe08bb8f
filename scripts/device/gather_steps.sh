# Sourced (after steps.sh) by the sm90_mqa_gather device scripts (sparse27, decode27,
# decode27_profile): the variant, its issue-27 shapes, its correctness steps and the head of
# their summaries, written once.
V=sm90_mqa_gather
DEC="h=64,hkv=1,t=1,s=32768,d=512,causal,wl=127,kvshared,sink,topk=512"   # one launch: top-k and window intersected
TOPK="h=64,hkv=1,t=1,s=32768,d=512,kvshared,sink,topk=512"
WIN="h=64,hkv=1,t=1,s=32768,d=512,causal,wl=127,kvshared,sink"
PRE="b=1,h=64,hkv=1,t=8192,s=8192,d=512,causal,wl=127,kvshared,sink"

# gather_checks GPU_CAP DSV4_CAP DSV4_TIMEOUT LONG_CAP LONG_TIMEOUT: the GPU test, then verify
# dsv4 and dsv4-long (seed 27), each verify's stored rows standing in for a cut one's JSON
gather_checks() {
  run gpu-test "$1" python3 -m pytest -q -p no:cacheprovider tests/sm90/test_gpu_mqa_gather.py
  run verify-dsv4 "$2" python3 -m fmhactl verify $V --grid dsv4 --seed 27 --timeout "$3" --json
  rows_if_cut verify-dsv4 dsv4
  run verify-dsv4-long "$4" python3 -m fmhactl verify $V --grid dsv4-long --seed 27 --timeout "$5" --json
  rows_if_cut verify-dsv4-long dsv4-long
}

# gather_summary_head BENCH_OUT...: steps, build, GPU test, verify counts and the bench rows
gather_summary_head() {
  echo "==== steps"
  cat "$RAW/device.log"
  echo "==== build"
  tail -n 9 "$RAW/build.out" 2>/dev/null
  echo "==== GPU test (tests/sm90/test_gpu_mqa_gather.py)"
  tail -n 3 "$RAW/gpu-test.out" 2>/dev/null
  python3 scripts/device/sparse27_summary.py --verify "$RAW/verify-dsv4.out" "$RAW/verify-dsv4-long.out" --bench "$@"
}
