set -u
source scripts/device/steps.sh
device_python
export FMHACTL_HOME=/tmp/fmhactl-decode26
T=$OUT/tests; mkdir -p $T
FMHACTL_FUZZ_CASES=200 FMHACTL_FUZZ_HF_CASES=60 timeout 150 python3 -m pytest -q -m gpu tests/torch/test_op_random_gpu.py tests/torch/test_integrations_random_gpu.py -p no:cacheprovider > $T/pytest-fuzz.txt 2>&1; echo "fuzz pytest rc=$?: $(tail -1 $T/pytest-fuzz.txt)" | tee -a $OUT/summary.txt
grep -m3 "seed" $T/pytest-fuzz.txt >> $OUT/summary.txt
FEW="b=1,h=8,hkv=1,t=1,s=4096,d=128 b=1,h=8,hkv=1,t=1,s=32768,d=128 b=1,h=16,hkv=2,t=1,s=16384,d=128 b=1,h=32,hkv=8,t=1,s=2048,d=128 b=1,h=32,hkv=8,t=1,s=8192,d=128 b=16,h=32,hkv=8,t=1,s=4096,d=128 b=1,h=32,hkv=8,t=16,s=2048,d=128 b=1,h=16,hkv=4,t=1,s=2048,d=64 b=2,h=32,hkv=8,t=1,s=4096,d=128 b=1,h=32,hkv=4,t=1,s=131072,d=128 b=1,h=16,hkv=4,t=1,s=8192,d=256 b=4,h=32,hkv=8,t=4,s=4096,d=128"
OUT=$OUT/ncu NCU_ONLY=1 ROUNDS=1 SHAPES="$FEW" SETTINGS="default old-default" bash scripts/device/decode26.sh 60
DEF=$(python3 -c "from fmhactl.bench.decode import DEFAULT_SHAPES as d; print(' '.join(d))")
OUT=$OUT/bench ROUNDS=3 SHAPES="$FEW $DEF" SETTINGS="default old-default" bash scripts/device/decode26.sh 330
