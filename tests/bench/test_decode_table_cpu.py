"""`fmhactl bench --decode`'s table (no GPU: the bench's result stands in): the op's row names the
decode kernel it launched and its split count (decode.describe_launch, the JSON's decode_launch),
so a reader of the timing sees which kernel and split choice it timed."""

from __future__ import annotations


def test_the_table_names_the_kernel_and_the_splits_the_op_launched(monkeypatch, capsys):
    import fmhactl.services.model_bench as services
    from fmhactl.cli import model_bench

    measures = {"kernel_us": 16.8, "per_call_us": 20.1, "hbm_gb_s": 1000.0}
    result = {"gpu": "NVIDIA H200", "rounds": 30, "rows": [
        {"shape": "b1h8kv1-t1s32768-d128-bf16", "decode_path": True,
         "decode_launch": {"kernel": "cluster", "n_splits": 64, "split_keys": 512, "grid": [1, 64, 1],
                           "merge": "clusters of 8 through DSMEM, then their partials by the last CTA of each rank"},
         "impls": {"fmhactl": measures, "sdpa-cudnn": {**measures, "kernel_us": 17.7, "note": "cuDNN's"}},
         "speed": {"sdpa-cudnn/fmhactl kernel_us": 17.7 / 16.8}},
        {"shape": "b1h32-t1s70000-d128-bf16", "decode_path": False, "impls": {"fmhactl": measures}, "speed": {}},
    ]}
    monkeypatch.setattr(services, "run_decode_bench", lambda shapes, iters, seed: result)
    model_bench.decode_bench(["b=1,h=8,hkv=1,t=1,s=32768,d=128"], iters=50, seed=None, as_json=False)
    lines = capsys.readouterr().out.splitlines()
    ours = [line for line in lines if "b1h8kv1" in line and "fmhactl" in line]
    assert len(ours) == 1 and "cluster kernel, 64 split(s) of 512 keys" in ours[0]
    assert any("sdpa-cudnn" in line and "cuDNN's" in line for line in lines)  # a baseline keeps its own note
    plain = [line for line in lines if "b1h32-t1s70000" in line]
    assert plain and "kernel," not in plain[0]  # no decode launch: no kernel note
