"""Issue 3: tracks, aids, markers, score sheet and dice, every number drawn from rules.yaml."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from pypdf import PdfReader

from generator import CARDS_DIR, DEFAULT_GAME
from generator.pipeline.build import BuildOptions, build_game
from generator.plan.geometry import Box, load_geometry
from generator.plan.impose import TICK, tile
from generator.plan.render import Face

from .conftest import copy_real_pack, edit, flat, page_texts

PACK = CARDS_DIR / DEFAULT_GAME
RULES = yaml.safe_load((PACK / "rules.yaml").read_text(encoding="utf-8"))
ROLES = yaml.safe_load((PACK / "roles.yaml").read_text(encoding="utf-8"))


def _text(folder: Path, kind: str, paper: str = "a4") -> str:
    return "".join(page_texts(folder / f"{kind}-{paper}.pdf"))


def _aid_phrases(rules: dict, role: str) -> list[str]:
    """What a role's aid front must say, computed from the rules data."""
    a = rules["actions"]
    monk = role == "monk"
    start = rules["start"][role]
    return [
        f"初始资粮{start['wealth']}/功德{start['merit']}/慧{start['wisdom']}",
        f"资粮+{a['labor']['gain'] + a['labor']['bonus'].get(role, 0)}；"
        f"不皈依+{a['labor']['bonus']['unrefuged']}",
        f"慧+{a['practice']['gain'] + a['practice']['bonus'].get(role, 0)}",
        f"资粮-{a['donate']['cost']}，"
        f"功德+{a['donate']['merit'] + a['donate']['bonus'].get(role, 0)}，"
        f"劫难-{a['donate']['calamity']}；劫难≥{a['donate']['high_calamity']}时功德再+"
        f"{a['donate']['high_calamity_merit']}",
        f"慧≥{a['save']['min_wisdom']}",
        f"资粮-{a['protect']['monk_cost' if monk else 'cost']}，"
        f"功德+{a['protect']['monk_merit' if monk else 'merit']}，劫难-{a['protect']['calamity']}；"
        f"劫难≥{a['protect']['crisis']}时功德再+{a['protect']['crisis_merit']}；本回合队友渡化功德+"
        f"{a['protect']['monk_blessing' if monk else 'blessing']}",
        f"每局{a['aid']['uses']}次请1人相助：赠资（对方资粮-{a['aid']['gift_wealth']}，"
        f"你+{a['aid']['gift_wealth']}）或授慧（对方慧-{a['aid']['teach_wisdom']}，"
        f"你+{a['aid']['teach_wisdom']}），双方功德+{a['aid']['merit']}",
        f"每局限用{rules['skills']['uses']}次",
    ]


def _flow_phrases(rules: dict) -> list[str]:
    """What the round flow on every aid's back must say."""
    r = rules
    return [
        f"共{r['game']['rounds']}回合·每人每回合{r['game']['actions_per_round']}次行动",
        f"皈依者再功德+{r['refuge']['round_merit']}",
        f"英雄标记终局+{r['scoring']['hero']}分",
        "第" + "/".join(map(str, r["events"]["general_rounds"])) + "回合抽通用个人事件",
        f"滞留={r['beings']['timeout']}且未渡化→劫难+{r['beings']['penalty']}，移出游戏；"
        f"补充{r['beings']['refill']}张众生",
        "第" + "/".join(map(str, r["survival"]["rounds"])) + f"回合资粮-{r['survival']['wealth']}"
        f"（不足则功德-{r['survival']['shortfall_merit']}；不皈依只在第"
        + "/".join(map(str, r["survival"]["unrefuged_rounds"])) + "回合）",
        f"帮助行动累计≥{r['help_reward']['actions']}次者功德+{r['help_reward']['merit']}",
        f"劫难≥{r['calamity']['loss']}立即失败",
        f"终局劫难≤{r['calamity']['win_max']}且渡化≥{r['saved']['goal']}",
        *(f"功德{t['merit']:+d}" for t in r["refuge"]["timing"]),
        f"舍资粮{r['mahayana']['renounce_wealth']}",
    ]


def _track_phrases(rules: dict) -> list[str]:
    """What the three tracks must say."""
    c, m = rules["calamity"], rules["scoring"]["multiplier"]
    return [
        # a track's name, its start and its span are apart: readers order them differently
        "劫难轨道", f"起点{rules['setup']['calamity']}", f"{c['min']}–{c['max']}",
        "".join(str(v) for v in range(c["min"], c["max"] + 1)),
        *(f"×{band['factor']}{band['name']}" for band in m),
        f"护法危机≥{rules['actions']['protect']['crisis']}：护法功德+"
        f"{rules['actions']['protect']['crisis_merit']}",
        f"苛政如虎≥{c['tyranny']}",
        f"胜利线：终局劫难≤{c['win_max']}",
        f"布施≥{rules['actions']['donate']['high_calamity']}",
        f"≥{c['loss']}：团队立即失败",
        "渡化计数", f"{rules['saved']['min']}–{rules['saved']['max']}",
        f"团队胜利需渡化≥{rules['saved']['goal']}",
        f"目标{rules['saved']['goal']}",
        f"回合标记{rules['setup']['round']}–{rules['game']['rounds']}",
        f"生存消耗：资粮-{rules['survival']['wealth']}",
    ]


def _score_phrases(rules: dict) -> list[str]:
    """What the score sheet must say."""
    s = rules["scoring"]
    bands = "".join(
        f"{b['min']}–{b['max']}{b['score']}" if "max" in b else f"{b['min']}+{b['score']}"
        for b in s["base"])
    return [
        f"终局劫难≤{rules['calamity']['win_max']}且渡化≥{rules['saved']['goal']}",
        f"功德<{s['imbalance_below']}或慧<{s['imbalance_below']}：⑤减半",
        f"枚数×{s['hero']}",
        f"个数×{s['achievement']}",
        bands,
        *(f"{b['min']}–{b['max']}×{b['factor']}{b['name']}" for b in s["multiplier"]),
    ]


def _check_everything(folder: Path, rules: dict) -> None:
    """Every component shows the numbers of `rules`."""
    aids = _text(folder, "aids")
    parts = re.split(r"AID-([a-z]+)", aids)  # each aid's text comes before its id
    fronts = dict(zip(parts[1::2], parts[0:-1:2], strict=True))
    assert sorted(fronts) == sorted(role["id"] for role in ROLES)
    for role, front in fronts.items():
        for phrase in _aid_phrases(rules, role):
            assert flat(phrase) in front, (role, phrase)
    flow = aids[aids.index("0.发愿奖励"):]
    for phrase in _flow_phrases(rules):
        assert flat(phrase) in flow, phrase
    boards = _text(folder, "boards")
    for phrase in _track_phrases(rules):
        assert flat(phrase) in boards, phrase
    score = _text(folder, "score")
    for phrase in _score_phrases(rules):
        assert flat(phrase) in score, phrase


def test_every_component_prints_the_rules_numbers(default_a4: Path) -> None:
    _check_everything(default_a4, RULES)


CHANGES = {  # a balance change touching every kind of component
    ("actions", "protect", "merit"): 6,
    ("actions", "protect", "monk_merit"): 7,
    ("actions", "protect", "crisis"): 9,
    ("actions", "labor", "gain"): 5,
    ("actions", "aid", "uses"): 3,
    ("beings", "penalty"): 5,
    ("calamity", "tyranny"): 11,
    ("saved", "goal"): 7,
    ("skills", "uses"): 3,
    ("start", "farmer", "wealth"): 6,
    ("scoring", "hero"): 9,
    ("scoring", "multiplier", 1, "factor"): 1.3,
    ("calamity", "win_max"): 11,
}


def test_a_balance_change_reprints_every_component(tmp_path: Path, default_a4: Path,
                                                   pool) -> None:
    """One build of the changed game checks every component and the rulebook."""
    cards = copy_real_pack(tmp_path)
    path = cards / DEFAULT_GAME / "rules.yaml"
    rules = yaml.safe_load(path.read_text(encoding="utf-8"))
    for keys, value in CHANGES.items():
        target = rules
        for key in keys[:-1]:
            target = target[key]
        target[keys[-1]] = value
    path.write_text(yaml.safe_dump(rules, allow_unicode=True, sort_keys=False), encoding="utf-8")
    result = build_game(DEFAULT_GAME, BuildOptions(), out_root=tmp_path / "out", cards_dir=cards,
                        workers=pool)
    # no CSS WeasyPrint ignores, no text left unchecked, none too faint, small or near the cut
    assert result.warnings == []
    folder = tmp_path / "out" / DEFAULT_GAME
    _check_everything(folder, rules)
    boards, cards_text = _text(folder, "boards"), _text(folder, "cards")
    # The role boards and the cards quote the rules too.
    assert "基础+6，僧侣总共+7" in boards and "每局限用3次" in boards
    assert "劳作时额外+1资粮（共获得6资粮）" in boards
    assert "劫难≥11时改为" in cards_text and "劫难≥10时改为" not in cards_text
    assert "英雄时刻·终局+9分" in _text(folder, "tokens")
    assert "+3分（荣誉）" in _text(folder, "tokens")  # achievements left alone
    # Nothing of the old numbers is left where the new ones went.
    old_boards = _text(default_a4, "boards")
    assert "苛政如虎≥10" in old_boards and "苛政如虎≥10" not in boards
    assert "×1.2功德圆满" in old_boards and "×1.2功德圆满" not in boards
    assert "目标5" not in boards and "枚数×5" not in _text(folder, "score")
    # The rulebook quotes the same rules.
    before, after = _text(default_a4, "rulebook"), _text(folder, "rulebook")
    farmer = RULES["start"]["farmer"]
    old = "".join(str(farmer[key]) for key in ("wealth", "merit", "wisdom"))
    new = "6" + old[1:]
    assert f"农夫{old}" in before and f"农夫{new}" in after and f"农夫{old}" not in after
    win = RULES["calamity"]["win_max"]
    assert f"劫难≤{win}" in before and "劫难≤11" in after and f"劫难≤{win}" not in after


def test_the_manifest_and_pdfs_hold_every_component(default_a4: Path) -> None:
    manifest = json.loads((default_a4 / "manifest.json").read_text(encoding="utf-8"))
    decks = {deck: info for o in manifest["outputs"] for deck, info in o["decks"].items()}
    # 470 mm: two pieces turned across A4; 250 mm: whole, turned
    assert decks["track-calamity"] == {"faces": 1, "backs": 0, "pieces": 2}
    assert decks["track-saved"] == {"faces": 1, "backs": 0}
    assert decks["track-round"] == {"faces": 1, "backs": 0}
    assert decks["action-cards"] == decks["aids"] == {"faces": 4, "backs": 4}
    aids = page_texts(default_a4 / "aids-a4.pdf")
    assert sum(page.count("A-actions") for page in aids) == 4
    assert sum(page.count("玩家辅助卡背面") for page in aids) == 4
    assert [p.count("AID-") for p in aids] == [2, 0, 2, 0]  # fronts, then their backs
    boards = "".join(page_texts(default_a4 / "boards-a4.pdf"))
    assert [boards.count(f"{n}/2") for n in (1, 2)] == [1, 1]
    assert boards.count("粘贴区→") == 1  # one join on the calamity track; 渡化计数 is whole


def test_dice_nets_print_at_true_size(default_a4: Path) -> None:
    reader = PdfReader(default_a4 / "dice-a4.pdf")
    assert len(reader.pages) == 1
    assert reader.trailer["/Root"]["/ViewerPreferences"]["/PrintScaling"] == "/None"
    assert float(reader.pages[0].mediabox.width) == pytest.approx(210 * 72 / 25.4, abs=0.05)


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_tiles_cover_the_track_with_overlaps(paper: str) -> None:
    """The pieces of a track fit the paper, overlap by the glue strip and cover it whole."""
    geometry = load_geometry().with_sizes({"long": Box(470, 60)})
    tiling = geometry.tiling(paper, "long")
    room = geometry.room(paper)
    assert tiling.cols == 2 and tiling.rows == 1  # turned across the paper: 2 pieces, not 3
    assert tiling.piece.width <= room.height and tiling.piece.height <= room.width
    starts = [tiling.origin(col, 0)[0] for col in range(tiling.cols)]
    for left, right in zip(starts, starts[1:], strict=False):
        assert left + tiling.piece.width - right == pytest.approx(geometry.overlap)
    assert starts[0] == 0
    assert starts[-1] + tiling.piece.width == pytest.approx(470)


def test_join_triangles_meet_tip_to_tip() -> None:
    """The triangles on a glue strip's edge and on the next piece's edge lie at the same place."""
    geometry = load_geometry().with_sizes({"long": Box(470, 60)})
    tiling = geometry.tiling("a4", "long")
    first, second = tile(Face("", "t"), tiling, "glue")

    def ticks(markup: str, side: str) -> list[tuple[float, float]]:
        found = []
        for part in markup.split(f'class="join-tick join-tick--{side}" style="left: ')[1:]:
            left, rest = part.split("mm; top: ", 1)
            found.append((float(left), float(rest.split("mm", 1)[0])))
        return found

    right, left = ticks(first.overlay, "right"), ticks(second.overlay, "left")
    assert len(right) == len(left) == 2
    glue_edge = tiling.piece.width - tiling.overlap
    for (rx, ry), (lx, ly) in zip(right, left, strict=True):
        assert rx + TICK == pytest.approx(glue_edge, abs=1e-3)  # tip on the strip's edge
        assert second.shift_x + lx == pytest.approx(first.shift_x + glue_edge, abs=1e-3)
        assert ry == ly


def test_a_tiled_board_can_also_print_whole_on_one_page(packs: Path, tmp_path: Path) -> None:
    """A 380×260 mm board: two A4 pieces, then an overview page at a scale that fits."""
    game = packs / "mini" / "game.yaml"
    edit(game, "decks:\n", "sizes:\n  board: {width: 380, height: 260}\ndecks:\n"
         "  - {id: board, name: 棋盘, file: board.yaml, size: board, template: card, count: 1,"
         " output: board, overview: true}\n")
    (packs / "mini" / "board.yaml").write_text("- {id: BD, name: 九宫棋盘}\n", encoding="utf-8")
    manifest = build_game("mini", out_root=tmp_path, cards_dir=packs).manifest
    board = next(o for o in manifest["outputs"] if o["kind"] == "board")
    assert board["decks"]["board"] == {"faces": 1, "backs": 0, "pieces": 2}
    assert board["pages"] == 3
    texts = page_texts(tmp_path / "mini" / "board-a4.pdf")
    assert ["1/2" in t for t in texts] == [True, False, False]
    assert texts[-1].count("九宫棋盘") == 1 and "粘贴区" not in texts[-1]
