#!/usr/bin/env python3
"""Win/draw/loss of a retrograde chess tablebase against Syzygy's tables, position by position.

A second method for issue 27's evidence: Syzygy's generator (github.com/syzygy1/tb, built
here) computes WDL by its own retrograde analysis, with its own index, move generator and
code. Its WDL knows the 50-move rule; without it a cursed win (1) is a win and a blessed
loss (-1) a loss, so the sign of Syzygy's WDL must be ours (2 win, 0 tie or draw, -2 loss)
on every position both hold. Syzygy's tables are read with python-chess's `chess.syzygy`
(GPL-3.0: installed beside this script for the check, never a dependency of retrograde).

What it compares, for every ending of 3 to --max-pieces pieces with both colourings (KQvKR
and KRvKQ):
- every legal position of the 3-piece endings, either side to move (all placements);
- --samples random legal positions of each larger ending, either side to move, pawns on
  ranks 2 to 7, and in endings where both sides have pawns about a quarter of them with an
  en-passant capture available.

Positions in check from two pieces at once are kept (they are legal placements, and both
tables hold them), but for a double check no move can give (two knights), which retrograde
refuses as no position: those are counted and left out. A position whose side not to move
is in check is no position.

    python syzygy_check.py --retrograde DB --syzygy DIR [--max-pieces 4] [--samples 20000]

Prints a line per ending (positions compared, wins, draws, losses, disagreements) and the
total; exits 1 on any disagreement (the first ones are printed), 2 on bad arguments.
"""

import argparse
import itertools
import random
import sys
import time

import chess
import chess.syzygy

import retrograde.chess

PIECES = "QRBNP"
SYMBOL = {"Q": chess.QUEEN, "R": chess.ROOK, "B": chess.BISHOP, "N": chess.KNIGHT, "P": chess.PAWN}
# The placements a position may have that python-chess calls invalid but that are legal
# positions of the tables: two checkers, or a check no single last move could give.
TOLERATED = chess.STATUS_TOO_MANY_CHECKERS | chess.STATUS_IMPOSSIBLE_CHECK


def endings(max_pieces):
    """Every ending of 3 to max_pieces pieces (kings included), both colourings, as
    (name, white pieces, black pieces)."""
    out = []
    for extra in range(1, max_pieces - 1):
        for white_count in range(extra, -1, -1):
            for white in itertools.combinations_with_replacement(PIECES, white_count):
                for black in itertools.combinations_with_replacement(PIECES, extra - white_count):
                    out.append(("K" + "".join(white) + "vK" + "".join(black), "".join(white), "".join(black)))
    return out


def legal(board):
    status = board.status() & ~TOLERATED
    return status == chess.STATUS_VALID


def place(board, white, black, squares):
    board.clear()
    pieces = [(chess.KING, chess.WHITE), (chess.KING, chess.BLACK)]
    pieces += [(SYMBOL[p], chess.WHITE) for p in white]
    pieces += [(SYMBOL[p], chess.BLACK) for p in black]
    for (kind, colour), sq in zip(pieces, squares):
        board.set_piece_at(sq, chess.Piece(kind, colour))


def every_position(white, black):
    """Every legal position of a small ending, either side to move."""
    board = chess.Board(None)
    n = 2 + len(white) + len(black)
    for squares in itertools.permutations(range(64), n):
        place(board, white, black, squares)
        for turn in (chess.WHITE, chess.BLACK):
            board.turn = turn
            if legal(board):
                yield board


def random_positions(white, black, count, rng):
    """count random legal positions; with pawns on both sides, about a quarter with an
    en-passant capture to make."""
    board = chess.Board(None)
    kinds = ["K", "K"] + list(white) + list(black)
    both_pawns = "P" in white and "P" in black
    made = 0
    while made < count:
        squares = []
        for kind in kinds:
            while True:
                sq = rng.randrange(64)
                if sq in squares or (kind == "P" and chess.square_rank(sq) in (0, 7)):
                    continue
                squares.append(sq)
                break
        place(board, white, black, squares)
        board.turn = rng.choice((chess.WHITE, chess.BLACK))
        if both_pawns and rng.random() < 0.25 and not with_en_passant(board, rng):
            continue
        if legal(board):
            made += 1
            yield board


def with_en_passant(board, rng):
    """Moves one of the side not to move's pawns to where a double push would have left
    it, with the en-passant square set; True when that capture is then legal."""
    mover = board.turn
    pushed = not mover
    rank = 3 if pushed == chess.WHITE else 4
    behind = -8 if pushed == chess.WHITE else 8
    pawns = list(board.pieces(chess.PAWN, pushed))
    rng.shuffle(pawns)
    for sq in pawns:
        target = chess.square(chess.square_file(sq), rank)
        if target != sq and board.piece_at(target) is not None:
            continue
        ep, origin = target + behind, target + 2 * behind
        if board.piece_at(ep) is not None or board.piece_at(origin) is not None:
            continue
        board.remove_piece_at(sq)
        board.set_piece_at(target, chess.Piece(chess.PAWN, pushed))
        board.ep_square = ep
        if board.has_legal_en_passant():
            return True
        board.ep_square = None
        return False
    return False


def sign(x):
    return (x > 0) - (x < 0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--retrograde", required=True, help="a `game chess --up-to N --db` directory")
    ap.add_argument("--syzygy", required=True, help="a directory of Syzygy .rtbw tables")
    ap.add_argument("--min-pieces", type=int, default=3, help="endings of N pieces or more (default 3)")
    ap.add_argument("--max-pieces", type=int, default=4, help="endings of up to N pieces (default 4)")
    ap.add_argument("--samples", type=int, default=20000, help="random positions per ending of 4+ pieces")
    ap.add_argument("--seed", type=int, default=27)
    ap.add_argument("--only", help="comma-separated endings to check (default: all)")
    args = ap.parse_args()
    if not 3 <= args.max_pieces <= 5 or args.samples < 1:
        ap.error("--max-pieces is 3 to 5 and --samples at least 1")

    ours = retrograde.chess.open_tablebase(args.retrograde)
    theirs = chess.syzygy.open_tablebase(args.syzygy)
    rng = random.Random(args.seed)
    wanted = set(args.only.split(",")) if args.only else None
    total = [0, 0, 0, 0, 0]
    shown = 0
    started = time.time()
    for name, white, black in endings(args.max_pieces):
        pieces = 2 + len(white) + len(black)
        if (wanted is not None and name not in wanted) or pieces < args.min_pieces:
            continue
        boards = (every_position(white, black) if pieces == 3
                  else random_positions(white, black, args.samples, rng))
        counts = [0, 0, 0, 0, 0]  # compared, wins, draws, losses, disagreements
        with_ep = refused = 0
        for board in boards:
            try:
                a = ours.probe_wdl(board)
            except ValueError:
                # No position for retrograde: a double check no move can give (two
                # knights), which python-chess's status tolerates here.
                refused += 1
                continue
            b = theirs.probe_wdl(board)
            counts[0] += 1
            counts[{2: 1, 0: 2, -2: 3}[a]] += 1
            with_ep += board.ep_square is not None and board.has_legal_en_passant()
            if sign(a) != sign(b):
                counts[4] += 1
                if shown < 20:
                    shown += 1
                    print(f"  DISAGREE {board.fen()}: retrograde {a}, syzygy {b}")
        total = [t + c for t, c in zip(total, counts)]
        how = "every position" if pieces == 3 else "random"
        ep = f", {with_ep} with en passant" if with_ep else ""
        ep += f", {refused} impossible checks left out" if refused else ""
        print(f"{name}: {counts[0]} positions ({how}{ep}): win {counts[1]}, draw {counts[2]}, "
              f"loss {counts[3]}, disagree {counts[4]}", flush=True)
    print(f"total: {total[0]} positions: win {total[1]}, draw {total[2]}, loss {total[3]}, "
          f"disagree {total[4]} ({time.time() - started:.0f} s)")
    return 1 if total[4] else 0


if __name__ == "__main__":
    sys.exit(main())
