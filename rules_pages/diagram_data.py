"""The diagrams of the rules pages, declared as data (see rules_pages/diagrams.py).

Each position is checked with the engine by rules_pages/tests/test_diagrams.py: the play must be
legal exactly when ``legal`` says so. Positions are in the RULES.md JSON form, each side in its
own numbering; the board labels use the numbering of the side to move, so the captions do too.
Figures quoted in captions (pip counts, points won) are the engine's: ``Position.pip`` and
``game_value``.
"""

from django.utils.translation import gettext_lazy as _

from .diagram_types import Diagram

START = {"turn": "white", "white": {"24": 15}, "black": {"24": 15}, "first_turn": True}

# Black won the roll-off with 6-5 and played 24/18 18/13; now it is white's first turn (R3, R5).
# In the sport and classic presets the first player's first roll is never a double, so the
# first-turn doubles of R5 are shown for the second player.
AFTER_BLACK_OPENED = {
    "turn": "white",
    "white": {"24": 15},
    "black": {"24": 14, "13": 1},
    "first_turn": True,
}

# An early middle game: white holds 24 to 20 (five points in a row in front of black's checkers).
WALL_OF_FIVE = {
    "turn": "white",
    "white": {"24": 8, "23": 2, "22": 1, "21": 1, "20": 1, "13": 2},
    "black": {"24": 9, "22": 2, "21": 1, "19": 1, "16": 2},
    "first_turn": False,
}
# The same, but one black checker has run ahead to its point 3 (white's 15).
WALL_OF_FIVE_PASSED = {
    "turn": "white",
    "white": {"24": 8, "23": 2, "22": 1, "21": 1, "20": 1, "13": 2},
    "black": {"24": 8, "22": 2, "21": 1, "19": 1, "16": 2, "3": 1},
    "first_turn": False,
}

# White holds 24, 23, 22 and 2, 1: five points in a row across the 1|24 joint (R7).
ACROSS_THE_JOINT = {
    "turn": "white",
    "white": {"24": 6, "23": 2, "22": 2, "8": 1, "7": 1, "2": 1, "1": 2},
    "black": {"24": 8, "23": 2, "21": 2, "18": 2, "17": 1},
    "first_turn": False,
}

# Black's home half (its points 1 to 6) for the bearing-off positions.
BLACK_AT_HOME = {"6": 2, "5": 3, "4": 3, "3": 2, "2": 2, "1": 3}

DIAGRAMS = [
    # R1 Board and numbering
    Diagram(
        id="board-route",
        position={
            "turn": "white",
            "white": {"24": 9, "20": 1, "19": 2, "18": 1, "17": 1, "13": 1},
            "black": {"24": 9, "23": 1, "22": 1, "21": 1, "20": 1, "14": 1, "2": 1},
            "first_turn": False,
        },
        dice=None,
        play="",
        legal=True,
        caption=_(
            "A game under way, numbered for white. White's checkers run from the head, point 24 "
            "in the top right corner, along the top row to the left, then back along the bottom "
            "row to the home, points 1 to 6 (highlighted). Black's run the same way round: from "
            "the bottom left corner along the bottom, then along the top to its home in the top "
            "left quarter."
        ),
        marks=tuple(("white", p) for p in range(1, 7)),
    ),
    # R2 Start (also on the home page)
    Diagram(
        id="start",
        position=START,
        dice=None,
        play="",
        legal=True,
        caption=_(
            "The start: all fifteen checkers of each side stand on its head, point 24. White's "
            "head is the top-right corner, black's the bottom-left one."
        ),
        marks=(("white", 24), ("black", 24)),
    ),
    # R3 Who starts (also on the home page)
    Diagram(
        id="opening-6-5",
        position=START,
        dice=(6, 5),
        play="24/18 18/13",
        legal=True,
        caption=_(
            "Opening 6-5: only one checker may leave the head, so one checker plays both dice, "
            "24/18 and on to 13."
        ),
    ),
    # R4 Moving
    Diagram(
        id="move-through-open-point",
        position={
            "turn": "white",
            "white": {"24": 10, "21": 1, "19": 1, "17": 1, "15": 1, "13": 1},
            "black": {"24": 9, "22": 2, "20": 1, "18": 1, "4": 1, "2": 1},
            "first_turn": False,
        },
        dice=(5, 3),
        play="21/18 18/13",
        legal=True,
        caption=_(
            "One checker may play both dice if it can stop on the way. From 21 the checker "
            "plays the 3 first, to the open point 18, and then the 5, to 13."
        ),
    ),
    Diagram(
        id="move-landing-blocked",
        position={
            "turn": "white",
            "white": {"24": 10, "21": 1, "19": 1, "17": 1, "15": 1, "13": 1},
            "black": {"24": 9, "22": 2, "20": 1, "18": 1, "4": 1, "2": 1},
            "first_turn": False,
        },
        dice=(5, 3),
        play="24/21 21/16",
        legal=False,
        caption=_(
            "The 5 cannot be played from 21: the checker would stop on 16, where a black "
            "checker stands. A single black checker holds a point; nothing is ever hit."
        ),
    ),
    # R5 Head rule
    Diagram(
        id="head-one-checker",
        position={
            "turn": "white",
            "white": {"24": 11, "19": 1, "16": 1, "13": 2},
            "black": {"24": 11, "20": 2, "17": 1, "14": 1},
            "first_turn": False,
        },
        dice=(5, 5),
        play="24/19 24/19 19/14 19/14",
        legal=False,
        caption=_(
            "In the middle of the game 5-5 may take only one checker from the head. Two head "
            "checkers are refused; one of them, played on with the other fives, is fine."
        ),
    ),
    Diagram(
        id="head-first-6-6",
        position=AFTER_BLACK_OPENED,
        dice=(6, 6),
        play="24/18 24/18",
        legal=True,
        caption=_(
            "White's first turn, 6-6: two checkers leave the head for 18. The other two sixes "
            "are lost: from 18 a six would land on black's head, and a third checker may not "
            "leave the head."
        ),
    ),
    Diagram(
        id="head-first-4-4",
        position=AFTER_BLACK_OPENED,
        dice=(4, 4),
        play="24/20 24/20 20/16 20/16",
        legal=True,
        caption=_(
            "White's first turn, 4-4: two checkers leave the head and both go on to 16. "
            "Nothing else is possible, since 12 is black's head."
        ),
    ),
    Diagram(
        id="head-first-3-3-pair",
        position=AFTER_BLACK_OPENED,
        dice=(3, 3),
        play="24/21 24/21 21/18 21/18",
        legal=True,
        caption=_("White's first turn, 3-3, first option: two checkers from the head to 18."),
    ),
    Diagram(
        id="head-first-3-3-split",
        position=AFTER_BLACK_OPENED,
        dice=(3, 3),
        play="24/21 21/18 18/15 24/21",
        legal=True,
        caption=_("The same 3-3, second option: one checker runs to 15 and the other stops on 21."),
    ),
    Diagram(
        id="head-first-5-5",
        position=AFTER_BLACK_OPENED,
        dice=(5, 5),
        play="24/19 24/19 19/14 19/14",
        legal=False,
        caption=_(
            "White's first turn, 5-5: the exception is only for 6-6, 4-4 and 3-3, so a second "
            "checker may not leave the head. The legal play here is one checker all the way, "
            "24/19 19/14 14/9 9/4."
        ),
    ),
    # R6 Playing the whole roll
    Diagram(
        id="whole-roll-both-dice",
        position={
            "turn": "white",
            "white": {"24": 13, "18": 1, "15": 1},
            "black": {"24": 11, "22": 2, "20": 1, "1": 1},
            "first_turn": False,
        },
        dice=(6, 5),
        play="24/18",
        legal=False,
        caption=_(
            "After 24/18 no five could be played: the head has been used, and 13 and 10 "
            "are black's. But 15/9 followed by 24/19 or 9/4 plays both dice, so white must "
            "choose one of those."
        ),
    ),
    Diagram(
        id="whole-roll-larger-die",
        position={
            "turn": "white",
            "white": {"24": 14, "18": 1},
            "black": {"24": 12, "19": 1, "18": 1, "1": 1},
            "first_turn": False,
        },
        dice=(6, 5),
        play="24/19",
        legal=False,
        caption=_(
            "Only one checker may leave the head, and the checker on 18 is stuck (13 and "
            "12 are black's), so only one die can be played. It must be the larger one: 24/18 "
            "is the only legal play, and 24/19 is refused."
        ),
    ),
    # R7 Six-point block
    Diagram(
        id="block-refused",
        position=WALL_OF_FIVE,
        dice=(5, 2),
        play="24/19 13/11",
        legal=False,
        caption=_(
            "White holds 24 to 20. The step 24/19 would make six points in a row, and no black "
            "checker is past them, so it is refused."
        ),
        marks=tuple(("white", p) for p in range(19, 25)),
    ),
    Diagram(
        id="block-allowed",
        position=WALL_OF_FIVE_PASSED,
        dice=(5, 2),
        play="24/19 13/11",
        legal=True,
        caption=_(
            "White holds 24 to 20, and one black checker has already got past, to white's 15. "
            "So 24/19 may complete six points in a row, from 24 to 19."
        ),
        marks=tuple(("white", p) for p in range(19, 25)),
    ),
    Diagram(
        id="block-joint-1-24",
        position=ACROSS_THE_JOINT,
        dice=(4, 1),
        play="7/3 8/7",
        legal=False,
        caption=_(
            "The joint between points 1 and 24 does not break a row: black's checkers walk "
            "from one to the other. With 3, 2, 1, 24, 23 and 22 white would hold six points in "
            "a row in front of every black checker, so 7/3 is refused."
        ),
        marks=(
            ("white", 3),
            ("white", 2),
            ("white", 1),
            ("white", 24),
            ("white", 23),
            ("white", 22),
        ),
    ),
    Diagram(
        id="block-joint-13-12",
        position={
            "turn": "white",
            "white": {"17": 1, "16": 2, "15": 2, "14": 2, "13": 2, "11": 2, "6": 2, "5": 2},
            "black": {"12": 2, "10": 2, "9": 2, "8": 2, "7": 2, "6": 3, "20": 2},
            "first_turn": False,
        },
        dice=(5, 1),
        play="17/12 16/15",
        legal=True,
        caption=_(
            "After this play white holds 16 to 11, six numbers in a row, and it is legal: "
            "between 13 and 12 black's path begins and ends, so for black these are two "
            "separate rows, 16 to 13 and 12 to 11."
        ),
        marks=tuple(("white", p) for p in range(11, 17)),
    ),
    Diagram(
        id="block-every-step",
        position=ACROSS_THE_JOINT,
        dice=(5, 2),
        play="8/3 3/1",
        legal=False,
        caption=_(
            "The block is checked after every step. The 2 cannot come first (6 is black's), so "
            "this checker would have to stop on 3 and make six in a row, 3 to 22, before "
            "moving on to 1. The row would last one step, and that step is already illegal."
        ),
    ),
    # R8 Bearing off
    Diagram(
        id="bear-off-exact",
        position={
            "turn": "white",
            "white": {"6": 2, "5": 3, "4": 3, "3": 2, "2": 2, "1": 1},
            "black": BLACK_AT_HOME,
            "first_turn": False,
        },
        dice=(5, 3),
        play="5/off 3/off",
        legal=True,
        caption=_(
            "All white checkers are home, so white bears off: the 5 takes a checker off point "
            "5 and the 3 one off point 3."
        ),
    ),
    Diagram(
        id="bear-off-higher-die",
        position={
            "turn": "white",
            "white": {"4": 2, "3": 3, "2": 2, "1": 3},
            "black": BLACK_AT_HOME,
            "first_turn": False,
        },
        dice=(6, 5),
        play="4/off 4/off",
        legal=True,
        caption=_(
            "Points 6 and 5 are empty and nothing stands higher than 4, so both the 6 and the "
            "5 bear off from the highest point, 4."
        ),
    ),
    Diagram(
        id="bear-off-must-move-inside",
        position={
            "turn": "white",
            "white": {"6": 1, "4": 3, "3": 3, "2": 2, "1": 2},
            "black": BLACK_AT_HOME,
            "first_turn": False,
        },
        dice=(5, 2),
        play="4/off 2/off",
        legal=False,
        caption=_(
            "Point 5 is empty, but a checker still stands higher, on 6, so the 5 may not bear "
            "off from 4: it has to move a checker inside the home, such as 6/1."
        ),
    ),
    Diagram(
        id="bear-off-clear-then-off",
        position={
            "turn": "white",
            "white": {"6": 1, "4": 3, "3": 3, "2": 2, "1": 2},
            "black": BLACK_AT_HOME,
            "first_turn": False,
        },
        dice=(5, 2),
        play="6/4 4/off",
        legal=True,
        caption=_(
            "With a checker still on 6, the 2 is played first, from 6 to 4. Then nothing stands "
            "higher than 4, and the 5 bears off from 4."
        ),
    ),
    Diagram(
        id="bear-off-entering-home",
        position={
            "turn": "white",
            "white": {"9": 1, "6": 3, "5": 3, "4": 3, "3": 2, "2": 2, "1": 1},
            "black": BLACK_AT_HOME,
            "first_turn": False,
        },
        dice=(6, 4),
        play="9/5 6/off",
        legal=True,
        caption=_(
            "The last checker comes home with the 4, and the 6 of the same roll already bears off."
        ),
    ),
    Diagram(
        id="bear-off-not-all-home",
        position={
            "turn": "white",
            "white": {"9": 1, "6": 3, "5": 3, "4": 3, "3": 2, "2": 2, "1": 1},
            "black": BLACK_AT_HOME,
            "first_turn": False,
        },
        dice=(6, 2),
        play="6/off 9/7",
        legal=False,
        caption=_(
            "No bearing off while a checker is outside the home: after 9/7 the checker still "
            "stands on 7, so 6/off is refused. 9/3 brings it home, and then the 2 may bear off."
        ),
    ),
    Diagram(
        id="bear-off-inside-instead",
        position={
            "turn": "white",
            "white": {"6": 2, "5": 2, "4": 3, "3": 2, "2": 1},
            "black": BLACK_AT_HOME,
            "first_turn": False,
        },
        dice=(6, 3),
        play="6/off 6/3",
        legal=True,
        caption=_(
            "Bearing off is never compulsory: white may play the 3 as 6/3 instead of taking a "
            "checker off point 3."
        ),
    ),
    # R9 End of the game and its value
    Diagram(
        id="end-oin",
        position={
            "turn": "black",
            "white": {},
            "black": {"6": 2, "5": 3, "4": 3, "3": 2, "2": 1},
            "first_turn": False,
        },
        dice=None,
        play="",
        legal=True,
        caption=_(
            "White has borne off its fifteenth checker. Black has borne off four, so white "
            "wins an oin: 1 point."
        ),
    ),
    Diagram(
        id="end-mars",
        position={
            "turn": "black",
            "white": {},
            "black": {"6": 4, "5": 4, "4": 3, "3": 2, "2": 1, "1": 1},
            "first_turn": False,
        },
        dice=None,
        play="",
        legal=True,
        caption=_(
            "All of black's checkers are home, but none has been borne off: white wins a mars, "
            "2 points."
        ),
    ),
    Diagram(
        id="end-koks",
        position={
            "turn": "black",
            "white": {},
            "black": {"14": 1, "8": 1, "6": 4, "5": 4, "4": 2, "3": 2, "1": 1},
            "first_turn": False,
        },
        dice=None,
        play="",
        legal=True,
        caption=_(
            "Black has borne off nothing and one of its checkers still stands in white's home. "
            "In the classic rules that is a koks, 3 points; in the sport and match rules, which "
            "have no koks, it is a mars, 2 points."
        ),
        ruleset="classic",
        marks=(("black", 14),),
    ),
    # R10 Doubling cube
    Diagram(
        id="cube-race",
        position={
            "turn": "white",
            "white": {"6": 3, "5": 3, "4": 3, "3": 2, "2": 2, "1": 2},
            "black": {"10": 2, "8": 2, "6": 3, "5": 3, "4": 2, "3": 2, "2": 1},
            "first_turn": False,
        },
        dice=None,
        play="",
        legal=True,
        caption=_(
            "Classic rules at a table with the cube. White is home and needs 57 pips, black "
            "still needs 85. Before rolling, white may offer to double: if black declines, "
            "white wins 1 point at once; if black accepts, the game goes on for 2 and only "
            "black may double next."
        ),
        ruleset="classic",
    ),
    # R11 Matches and clocks
    Diagram(
        id="time-out",
        position={
            "turn": "white",
            "white": {"9": 2, "7": 3, "6": 3, "5": 3, "4": 2, "2": 2},
            "black": {"3": 2, "2": 2, "1": 1},
            "first_turn": False,
        },
        dice=None,
        play="",
        legal=True,
        caption=_(
            "White's time runs out here (standard clock). The game is scored as if black had "
            "just borne off its last checker: white has borne off none, so black wins a mars, "
            "2 points."
        ),
    ),
    # First steps (strategy)
    Diagram(
        id="strategy-pip-count",
        position={
            "turn": "white",
            "white": {"8": 2, "6": 3, "5": 3, "4": 2, "3": 2, "2": 2, "1": 1},
            "black": {"9": 2, "7": 1, "6": 3, "5": 3, "4": 2, "3": 2, "1": 2},
            "first_turn": False,
        },
        dice=None,
        play="",
        legal=True,
        caption=_(
            "White needs 68 pips, black 74, and white is on roll: a clear lead, since an "
            "average roll is worth a little over 8 pips."
        ),
    ),
    Diagram(
        id="strategy-head",
        position={
            "turn": "white",
            "white": {"24": 14, "13": 1},
            "black": {"24": 14, "13": 1},
            "first_turn": False,
        },
        dice=(4, 3),
        play="24/20 13/10",
        legal=True,
        caption=_(
            "A new checker comes down from the head with the 4, and the 3 moves the runner on. "
            "Only one head checker may leave per turn, so a roll that takes none is a chance "
            "lost."
        ),
    ),
    Diagram(
        id="strategy-block",
        position={
            "turn": "white",
            "white": {"24": 4, "22": 2, "21": 2, "20": 2, "19": 2, "18": 2, "9": 1},
            "black": {"24": 4, "20": 2, "19": 2, "18": 2, "17": 2, "16": 1, "13": 2},
            "first_turn": False,
        },
        dice=None,
        play="",
        legal=True,
        caption=_(
            "White holds five points in a row, 22 to 18, and every black checker is still behind "
            "them. A sixth point in the row is not allowed until a black checker has got past."
        ),
        marks=tuple(("white", p) for p in range(18, 23)),
    ),
    Diagram(
        id="strategy-home",
        position={
            "turn": "white",
            "white": {"8": 1, "7": 2, "6": 3, "5": 2, "4": 3, "3": 2, "2": 1, "1": 1},
            "black": {"6": 4, "5": 3, "4": 3, "3": 2, "2": 2, "1": 1},
            "first_turn": False,
        },
        dice=None,
        play="",
        legal=True,
        caption=_(
            "A home ready for bearing off: every point from 1 to 6 is taken and the last "
            "checkers are close. Few rolls will be wasted."
        ),
    ),
]
