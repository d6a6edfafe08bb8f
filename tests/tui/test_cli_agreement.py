"""The TUI renders the same service results the CLI prints: the SM100 plan for every variant and
every head dim the family declares, and the Map screen's P/O columns against that plan."""

from __future__ import annotations

import re

from typer.testing import CliRunner

from tests.tui.conftest import drive

from fmhactl.cli.app import app as cli
from fmhactl.services import layout as svc
from fmhactl.tui.app import FmhaApp

runner = CliRunner()


def cli_plan(variant: str, head_dim: int) -> tuple[int, str]:
    result = runner.invoke(cli, ["layout", "plan", variant, "--head-dim", str(head_dim)], env={"COLUMNS": "200"})
    return result.exit_code, result.stdout.rstrip("\n")


def cases() -> list[tuple[str, int]]:
    return [(v, d) for v in svc.sm100_plan_variants() for d in svc.declared_head_dims(v)]


def test_every_sm100_variant_declares_head_dims_up_to_512():
    """Guard for the loop below: it must cover something, and the issue's case (hd512 SMEM-P)."""
    all_cases = cases()
    assert len(svc.sm100_plan_variants()) >= 6
    assert ("sm100_tma_s2_smem", 512) in all_cases and ("sm100_tma_s2_tmem", 8) in all_cases


def test_plan_mode_text_and_verdict_equal_layout_plan_for_every_variant_and_head_dim():
    app = FmhaApp("tmem", {"plan": True, "variant": "sm100_tma_s2_tmem", "head_dim": 128})
    seen = {"supported": 0, "unsupported": 0}

    async def script(pilot):
        page = app.page("tmem")
        for variant, head_dim in cases():
            page.set_options(variant=variant, head_dim=head_dim)  # what `v` and `d` call; updates at once
            code, cli_text = cli_plan(variant, head_dim)
            shown = str(app.query_one("#tmem-plan").render())
            message = str(app.query_one("#tmem-msg").render())
            where = f"{variant} d{head_dim}"
            assert shown == cli_text, where
            assert code in (0, 1), where
            if code == 1:
                seen["unsupported"] += 1
                assert message.startswith("UNSUPPORTED: ") and message in cli_text.splitlines(), where
                assert "error" in app.query_one("#tmem-msg").classes, where
            else:
                seen["supported"] += 1
                assert message.startswith("supported: ") and "UNSUPPORTED" not in shown, where

    drive(app, script)
    assert seen["supported"] and seen["unsupported"]  # both verdicts were compared


def test_issue_case_smem_p_at_512_is_unsupported_in_both():
    """`tui --screen tmem --plan sm100_tma_s2_smem --head-dim 512` drew "fits in TMEM"; the CLI exits 1."""
    from fmhactl.tui.deeplink import build

    link = build("tmem", {"plan": "sm100_tma_s2_smem", "head_dim": 512})
    app = FmhaApp(link.screen, link.options)

    async def script(pilot):
        message = str(app.query_one("#tmem-msg").render())
        assert message.startswith("UNSUPPORTED: SMEM needs")
        assert "fits" not in str(app.query_one("#tmem-plan").render())

    drive(app, script)
    assert cli_plan("sm100_tma_s2_smem", 512)[0] == 1


def test_smem_p_plan_names_no_p_in_tmem():
    """With P in SMEM there is no P region in TMEM, so nothing says S aliases P."""
    text = "\n".join(svc.sm100_plan("sm100_tma_s2_smem", 128).lines)
    assert "P in SMEM" in text and "aliases" not in text
    assert not [line for line in text.splitlines() if line.lstrip().startswith("P    columns")]
    column_plan = svc.sm100_column_plan("sm100_tma_s2_smem", 128)
    assert all(not r.aliases for r in column_plan.regions)


def _region(lines: tuple[str, ...], name: str) -> tuple[int, int]:
    for line in lines:
        hit = re.match(rf"\s+{name}\s+columns\s+(\d+)\.\.(\d+)", line)
        if hit:
            return int(hit.group(1)), int(hit.group(2))
    raise AssertionError(f"no {name} region in {lines}")


def test_map_screen_p_columns_are_the_plans_and_stop_before_o():
    """For every TMEM-P variant and entry head dim: the Map screen (TS form, S as wide as the plan's
    BlockN) puts P exactly on the plan's P columns, left of O."""
    tmem_p = [v for v in svc.sm100_plan_variants() if not svc.sm100_plan(v, 128).plan.p_in_smem]
    assert tmem_p
    app = FmhaApp("map")

    async def script(pilot):
        page = app.page("map")
        await pilot.press("T")  # P to TMEM, the key a user presses
        assert page.options["to_tmem"]
        for variant in tmem_p:
            for head_dim in (64, 128, 256, 512):
                report = svc.sm100_plan(variant, head_dim)
                if not report.supported:
                    continue
                page.set_options(n=report.plan.block_n)
                await pilot.pause()
                p_first, p_last = _region(report.lines, "P")
                o_first, _ = _region(report.lines, "O")
                cols = page.view.dest_grid.cols
                assert (cols[0], cols[-1]) == (p_first, p_last), f"{variant} d{head_dim}"
                assert cols[-1] < o_first

    drive(app, script)


def test_map_find_names_the_element_the_cli_names():
    """`f 5,2 Enter` on the TS map: the P side is P[5][2] where `layout map --element 5,2` puts it."""
    result = runner.invoke(cli, ["layout", "map", "--to", "tmem", "--element", "5,2"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    hit = re.search(r"P\[5\]\[2\]: .* -> TMEM lane (\d+) column (\d+) bits (\d+)", result.stdout)
    assert hit, result.stdout
    lane, col, bit = hit.groups()
    app = FmhaApp("map")

    async def script(pilot):
        await pilot.press("T", "f")
        await pilot.pause()
        app.focused.value = "5,2"
        await pilot.press("enter")
        await pilot.pause()
        info = str(app.query_one("#map-info").render()).splitlines()
        p_side = next(line for line in info if line.startswith("P side: "))
        assert p_side.startswith(f"P side: P[5][2] -> TMEM lane {lane}, column {col} holds ")
        assert f"P[5][2] (bits {bit}..15" in p_side and "P[5][3] (bits 16..31" in p_side

    drive(app, script)
