# An arena: each vertex has an owner who moves there (owner lines; unnamed vertices belong
# to player 0). A move passes the turn only between vertices of different owners.
# Player 1 owns 2 and 3; at 3 player 1 is stuck and loses, so player 0 heads there.
owner 2 1
owner 3 1
0 1
0 2
1 0
2 0
2 3
1 3
