# A small loopy impartial game for `retrograde grundy` and `retrograde sum`.
# Both players have the same moves; who cannot move loses; play may go on forever.
#   0 has no move: value 0.           1 -> 0: value 1.
#   2 <-> 3 and 3 -> 0: 3 wins (to 0), so 2, whose only move is to 3, is lost: 2 is 0, 3 is 1.
#   4 has a self-loop and a move to 0: won (move to 0), yet no nim heap: inf{0}.
#   5 <-> 6, both -> 1: moving to 1 hands the opponent a win, so they cycle: inf{1}, a draw.
#   7 -> 4 or 5: no move to a 0, and 5 keeps the draw: inf{}, a draw.
#   8 -> 0 or 5: value 1. A move to 5 (infinite) is answered by 5 -> 1, back to value 1.
start 8
1 0
2 3
3 2
3 0
4 4
4 0
5 6
5 1
6 5
6 1
7 4
7 5
8 5
8 0
