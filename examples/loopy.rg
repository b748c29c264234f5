# Every kind of value in one small graph (rg format).
#   0 -> 1 -> 2: 2 has no move (a loss), so 1 is won in 1 and 0 lost in 2.
#   3 <-> 4: the game never ends (draw).
#   5 can run into the draw cycle or into 6, a tie: it prefers the tie.
#   7 has a self-loop and a move to 2: a self-loop position is never lost.
#   8 -> 9 again: after that move the same player moves again, at 9, which is won.
0 1
1 2
3 4
4 3
5 3
5 6
terminal 6 tie
7 7
7 2
8 9 again
9 2
9 0
name 6 level end
