# The pebble game of seed 004: a bag of 10 pebbles, each player takes 1 or 2,
# the player facing an empty bag cannot move and loses. Vertex v = v pebbles left.
# Expected: v is a loss for the player to move exactly when v % 3 == 0,
# so Matin, who starts with 10, wins by taking 1.
vertices 11
start 10
name 0 0 pebbles
name 1 1 pebble
name 2 2 pebbles
name 3 3 pebbles
name 4 4 pebbles
name 5 5 pebbles
name 6 6 pebbles
name 7 7 pebbles
name 8 8 pebbles
name 9 9 pebbles
name 10 10 pebbles
1 0
2 1
2 0
3 2
3 1
4 3
4 2
5 4
5 3
6 5
6 4
7 6
7 5
8 7
8 6
9 8
9 7
10 9
10 8
