"""Chess tablebases (`retrograde.chess`): a set of every ending of up to three pieces,
probed as python-chess's `chess.syzygy` probes, against each ending solved alone."""

import json
import pathlib

import pytest

import retrograde
import retrograde.chess
from retrograde import Value

KQK = "8/8/8/4k3/8/8/8/4KQ2 w - - 0 1"


@pytest.fixture(scope="module")
def tb_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("tb3")
    g = retrograde.games.chess(up_to=3, db=str(d))
    assert g.name == "chess up to 3 pieces"
    return d


@pytest.fixture(scope="module")
def tb(tb_dir):
    return retrograde.chess.open_tablebase(tb_dir)


class Board:
    """Anything with a .fen() method is a board (python-chess's are)."""

    def __init__(self, fen):
        self._fen = fen

    def fen(self):
        return self._fen


def test_wdl_and_dtm_of_known_positions(tb):
    assert tb.name == "chess up to 3 pieces"
    # Black is checkmated; white mates in one (Qh8#); a rook taken: a draw.
    assert (tb.probe_wdl("k7/1Q6/1K6/8/8/8/8/8 b - - 0 1"), tb.probe_dtm("k7/1Q6/1K6/8/8/8/8/8 b - - 0 1")) == (-2, 0)
    assert (tb.probe_wdl("k7/8/1K6/8/8/8/7Q/8 w - - 0 1"), tb.probe_dtm("k7/8/1K6/8/8/8/7Q/8 w - - 0 1")) == (2, 1)
    assert (tb.probe_wdl("8/8/8/8/8/8/1k6/1R1K4 b - -"), tb.probe_dtm("8/8/8/8/8/8/1k6/1R1K4 b - -")) == (0, 0)
    # The same position, the colours swapped: the same depth for the side to move.
    assert tb.probe_dtm(KQK) == 15
    assert tb.probe_dtm("4kq2/8/8/8/4K3/8/8/8 b - - 0 1") == 15
    assert tb.probe_dtm("4kq2/8/8/8/4K3/8/8/8 w - - 0 1") == -16


def test_a_board_is_anything_with_a_fen_method(tb):
    assert tb.probe_wdl(Board(KQK)) == 2
    assert tb.probe_dtm(Board(KQK)) == tb.probe_dtm(KQK)
    assert tb.probe(Board(KQK)) == tb.probe(KQK)
    with pytest.raises(TypeError, match="fen"):
        tb.probe_wdl(42)

    class Wrong:
        def fen(self):
            return 42

    with pytest.raises(TypeError, match="not str"):
        tb.probe_dtm(Wrong())


def test_probe_gives_the_best_moves_and_every_move(tb):
    p = tb.probe("k7/8/1K6/8/8/8/7Q/8 w - - 0 1")
    assert p.fen == "k7/8/1K6/8/8/8/7Q/8 w - - 0 1"
    assert (p.value, p.wdl, p.dtm) == (Value.win(1), 2, 1)
    assert p.best == ["h2h8"]
    assert dict(p.moves)["h2c7"] == Value.tie(1)  # stalemate
    assert p.moves[0] == ("h2h8", Value.win(1))
    mated = tb.probe("k7/1Q6/1K6/8/8/8/8/8 b - - 0 1")
    assert (mated.value, mated.best, mated.moves) == (Value.loss(0), [], [])


def test_probes_agree_with_the_ending_solved_alone(tb):
    alone = retrograde.games.chess("KRvK")
    for fen in [
        "8/8/8/4k3/8/8/8/4KR2 w - - 0 1",
        "8/8/8/4k3/8/8/8/4KR2 b - - 0 1",
        "8/8/3k4/8/8/8/1R6/6K1 b - - 0 1",
        "R7/8/8/8/8/3k4/8/7K w - - 0 1",
    ]:
        p = tb.probe(fen)
        assert p.value == alone.value(position=fen)
        assert p.moves == alone.moves(position=fen)
        assert tb.probe_wdl(fen) == {"win": 2, "loss": -2}.get(p.value.outcome.name.lower(), 0)


def test_the_command_line_solves_the_same_set(tb, cli, tmp_path):
    cli("game", "chess", "--up-to", "3", "--db", tmp_path)
    from_cli = retrograde.chess.open_tablebase(tmp_path)
    for fen in [KQK, "8/8/8/4k3/8/8/8/4KR2 b - - 0 1", "8/8/8/8/8/2k5/4P3/4K3 w - - 0 1"]:
        assert from_cli.probe(fen) == tb.probe(fen)
    want = json.loads(cli("query", tmp_path, "--position", KQK, "--output", "json"))
    assert tb.probe_dtm(KQK) == want["remoteness"]


def _values_bytes(d):
    return sum(f.stat().st_size for f in pathlib.Path(d).glob("*.values"))


def test_a_compact_set_probes_the_same_in_half_the_bytes(tb, tb_dir, tmp_path):
    g = retrograde.games.chess(up_to=3, db=tmp_path, compact=True)
    assert g.name == "chess up to 3 pieces"
    compact = retrograde.chess.open_tablebase(tmp_path)
    assert _values_bytes(tmp_path) * 10 < _values_bytes(tb_dir) * 7
    for fen in [
        KQK,
        "8/8/8/4k3/8/8/8/4KQ2 b - - 0 1",
        "8/8/8/4k3/8/8/8/4KR2 b - - 0 1",
        "8/8/8/4k3/8/8/8/4KR2 w - - 0 1",
        "8/8/8/8/8/2k5/4P3/4K3 w - - 0 1",
        "8/8/8/8/8/2k5/4P3/4K3 b - - 0 1",
    ]:
        assert compact.probe(fen) == tb.probe(fen)
    with pytest.raises(ValueError, match="needs db="):
        retrograde.games.chess("KQvK", compact=True)


def test_errors(tb, tb_dir, tmp_path):
    # A position of an ending the set does not hold: KeyError, as chess.syzygy raises.
    with pytest.raises(KeyError, match="KQvKR"):
        tb.probe_wdl("8/8/8/4k3/8/8/8/r3KQ2 w - - 0 1")
    assert tb.get_wdl("8/8/8/4k3/8/8/8/r3KQ2 w - - 0 1") is None
    assert tb.get_dtm("8/8/8/4k3/8/8/8/r3KQ2 w - - 0 1", default=-1) == -1
    assert tb.get_wdl(KQK) == 2
    # No position: ValueError, saying what was expected.
    for bad in ["", "nonsense", "8/8/8/4k3/8/8/8/4KQ2 w KQ - 0 1", "8/8/8/8/8/8/8/4K3 w - - 0 1"]:
        with pytest.raises(ValueError, match="FEN"):
            tb.probe_dtm(bad)
        with pytest.raises(ValueError):
            tb.probe(bad)
    # No tablebase there.
    with pytest.raises(FileNotFoundError, match="no finished chess tablebase"):
        retrograde.chess.open_tablebase(tmp_path)
    with pytest.raises(FileNotFoundError):
        retrograde.chess.open_tablebase(tmp_path / "nowhere")
    other = tmp_path / "ttt"
    retrograde.games.tictactoe(db=str(other))
    with pytest.raises(ValueError, match="not a chess tablebase"):
        retrograde.chess.open_tablebase(other)
    # A path object, and a with block.
    with retrograde.chess.open_tablebase(pathlib.Path(tb_dir)) as again:
        assert again.probe_wdl(KQK) == 2


def test_fens_are_read_exactly(tb):
    # A board of 7 ranks was read as another position (the ranks shifted, an empty 8th
    # added): it is refused with what is wrong, as the command line and the server do.
    kqk = retrograde.games.chess("KQvK")
    for bad, want in [
        ("4k3/8/8/8/8/8/4KQ2 w - - 0 1", "has 7 ranks, expected 8"),
        ("8/8/8/4k3/8/8/8/8/4KQ2 w - - 0 1", "has 9 ranks, expected 8"),
        ("8/8/8/4k2/8/8/8/4KQ2 w - - 0 1", 'rank 5 is "4k2": 7 squares, expected 8'),
        ("8/8/8/4k3/8/8/8/4KX2 w - - 0 1", "'X' is neither a piece"),
        ("8/8/8/4k3/8/8/8/4KQ2 w - e4 0 1", 'the en-passant square is "e4"'),
    ]:
        for probe in (tb.probe_dtm, lambda fen: kqk.value(position=fen)):
            with pytest.raises(ValueError) as e:
                probe(bad)
            assert want in str(e.value), (bad, str(e.value))
    assert kqk.value(position=KQK) == tb.probe(KQK).value
