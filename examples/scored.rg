# Scores (issue 24): how much the player to move gets. `score V S` makes V terminal,
# worth S to the player to move there; a `terminal` label is worth +1, -1 or 0 and a
# dead end follows --no-move (a loss: -1). A game that never ends is worth 0 (a draw).
#
# 0 chooses between 1 (the opponent gets 5) and 2 (the opponent gets 2): loss by 2 in 2.
0 1
0 2
2 3
2 0
score 1 5
score 3 -2
# 4 can loop on itself forever (worth 0) or move to 3 (worth 2 to it): win by 2 in 1.
4 4
4 3
# 5 reaches a tie at 6 or an endless cycle 7 <-> 8: both prefer the end, tie in 1.
5 6
5 7
7 8
8 7
terminal 6 tie
# 10 moves to the dead end 9 (a loss, -1, for its mover): win by 1 in 1.
10 9
# The largest scores there are.
12 11
score 11 -9223372036854775807
