"""The questions players argue about, with exact answers (RULES.md R3–R11).

``FAQ`` is rendered by ``templates/rules_pages/faq.html`` and turned into FAQPage structured
data (JSON-LD) by ``rules_pages.views.FaqView``, both from this one list. Answers are
gettext_lazy strings of simple HTML (``<p>``, ``<em>``, ``<strong>``, ``<a>``); ``diagram`` is
the id of a diagram from ``rules_pages/diagram_data.py`` shown under the answer, or None.
"""

from dataclasses import dataclass

from django.utils.translation import gettext_lazy as _


@dataclass(frozen=True)
class FaqEntry:
    """One question: ``id`` (the slug used as the HTML anchor), ``question`` (plain text),
    ``answer`` (simple HTML), ``diagram`` (a diagram id or None)."""

    id: str
    question: str
    answer: str
    diagram: str | None = None


FAQ = [
    FaqEntry(
        id="two-from-head-with-5-5",
        question=_("Can I take two checkers from the head with 5-5?"),
        answer=_(
            "<p>No. Two checkers may leave the head only on your own first turn of the game, "
            "and only with 6-6, 4-4 or 3-3. With 5-5, on the first turn or later, one checker "
            "leaves the head; the other fives are played by checkers that have already left it, "
            "or by the same checker going on.</p>"
            "<p>The three exceptions are the doubles whose steps from the head would land on "
            "your point 12, the opponent's head, so a single checker could not play them in "
            "full. The fives of 5-5 jump over that point.</p>"
        ),
        diagram="head-first-5-5",
    ),
    FaqEntry(
        id="two-sixes-lost",
        question=_("Why are two sixes lost with 6-6 on the first turn?"),
        answer=_(
            "<p>Two checkers go from the head to 18, and then nothing can play a six. A third "
            "checker may not leave the head, and a six from 18 would land on 12, the opponent's "
            "head. All your other checkers are still on the head, so the last two sixes cannot "
            "be played and are lost.</p>"
        ),
        diagram="head-first-6-6",
    ),
    FaqEntry(
        id="first-turn-second-player",
        question=_("Does the first-turn exception also apply to the player who moves second?"),
        answer=_(
            "<p>Yes. Each player has a first turn of their own, and the exception applies on "
            "it. In the sport and classic rules the player who starts plays the dice of the "
            "roll-off, which are never a double, so there the exception matters only for the "
            "second player. In the match rules the winner of the roll-off rolls afresh and may "
            "get 6-6, 4-4 or 3-3 as well.</p>"
        ),
    ),
    FaqEntry(
        id="first-roll-double",
        question=_("Can the first roll of a game be a double?"),
        answer=_(
            "<p>In the sport and classic rules, no: the winner of the roll-off plays the two "
            "dice of the roll-off, and equal dice are always rolled again. In the match rules, "
            "yes: the winner of the roll-off rolls both dice afresh, and from the second game "
            "of a match on, the winner of the previous game starts with a fresh roll of both "
            "dice.</p>"
        ),
    ),
    FaqEntry(
        id="why-cant-i-play-this-6",
        question=_("Why can't I play this 6?"),
        answer=_(
            "<p>A step is refused only when a rule forbids it. For a six the usual reasons "
            "are these.</p>"
            "<p><strong>The point is taken.</strong> The six would end on a point where the "
            "opponent has a checker, even a single one.</p>"
            "<p><strong>The head.</strong> A checker has already left the head this turn.</p>"
            "<p><strong>The block.</strong> The step would give you six points in a row with "
            "no opponent checker past them.</p>"
            "<p><strong>The rest of the roll.</strong> After this six the other die could not "
            "be played, while another play uses both dice. You must choose a play that uses "
            "the whole roll.</p>"
            "<p><strong>Bearing off.</strong> The six would take a checker off the board while "
            "not all your checkers are home.</p>"
        ),
        diagram="whole-roll-both-dice",
    ),
    FaqEntry(
        id="only-one-die",
        question=_("Only one of my dice can be played. Which one?"),
        answer=_(
            "<p>The larger one, if it can be played; the smaller one only if the larger cannot. "
            "This applies when no order of the two dice lets you play both. If both can be "
            "played, you must play both.</p>"
        ),
        diagram="whole-roll-larger-die",
    ),
    FaqEntry(
        id="bear-off-6-from-4",
        question=_("Can I bear off with a 6 when my furthest checker is on 4?"),
        answer=_(
            "<p>Yes. Once all your checkers are home, a 6 always bears off: from point 6, or, "
            "when point 6 is empty, from your highest occupied point. Any other die does the "
            "same when its point is empty and nothing stands higher, so with your furthest "
            "checker on 4 a 5 also bears off from 4.</p>"
            "<p>A smaller die is different. A 3 with point 3 empty and checkers on 4 must be "
            "played inside the home, for example 4/1.</p>"
        ),
        diagram="bear-off-higher-die",
    ),
    FaqEntry(
        id="higher-checker-stands",
        question=_("I rolled a 5 and point 5 is empty. Why can't I bear off from 4?"),
        answer=_(
            "<p>Because you still have a checker above it, on 6. A die may bear off from a "
            "lower point only when no checker of yours stands higher; until then it must move "
            "a checker inside the home.</p>"
            "<p>The order of the dice can help. With 5-2 you may play the 2 first, 6/4: now "
            "nothing stands above 4, and the 5 bears off from 4.</p>"
        ),
        diagram="bear-off-clear-then-off",
    ),
    FaqEntry(
        id="bearing-off-compulsory",
        question=_("Do I have to bear off when I can?"),
        answer=_(
            "<p>No. Bearing off is never compulsory: you may move a checker inside the home "
            "instead, as long as that step is legal. The whole roll must still be played, so "
            "both dice have to be used one way or another if they can be.</p>"
        ),
        diagram="bear-off-inside-instead",
    ),
    FaqEntry(
        id="bear-off-same-turn",
        question=_("My last checker came home with one die. May the other die bear off?"),
        answer=_(
            "<p>Yes. What counts is where your checkers stand when the step is played: once "
            "the last one is home, the rest of the roll may bear off. And the other way round: "
            "while a checker is still outside the home, no die may bear off, in whatever order "
            "you enter the steps.</p>"
        ),
        diagram="bear-off-not-all-home",
    ),
    FaqEntry(
        id="block-of-six-allowed",
        question=_("Is a block of six ever allowed?"),
        answer=_(
            "<p>Yes, as soon as at least one opponent checker is ahead of it (on a point the "
            "opponent reaches after the block), or once the opponent has borne off a checker. "
            "The rule only forbids shutting in every opponent checker at once. Five points in "
            "a row are allowed at any time.</p>"
        ),
        diagram="block-allowed",
    ),
    FaqEntry(
        id="block-for-one-step",
        question=_("May I make six in a row for a moment if my next step breaks the row?"),
        answer=_(
            "<p>No. The block is checked after every single step, so a step that makes a "
            "forbidden row is illegal, even if the next step of the same roll would break the "
            "row at once.</p>"
            "<p>The server does look at the position your play leads to: if some order of the "
            "steps reaches it without a forbidden row, the play is accepted, whichever order "
            "you entered. The rule bites only when every way to that position passes through "
            "six in a row.</p>"
        ),
        diagram="block-every-step",
    ),
    FaqEntry(
        id="block-across-the-corner",
        question=_("Does a row count across the corner from point 1 to point 24?"),
        answer=_(
            "<p>Yes. The opponent's checkers walk straight from your point 1 on to your point "
            "24 (their 13 and 12), so for them these are neighbouring points, and a row such as "
            "3, 2, 1, 24, 23, 22 counts as six in a row. The other joint, between your points "
            "13 and 12, does not join rows: that is where the opponent's path begins and "
            "ends.</p>"
        ),
        diagram="block-joint-1-24",
    ),
    FaqEntry(
        id="mars-and-koks",
        question=_("What are mars and koks?"),
        answer=_(
            "<p>Bigger wins. An ordinary win, an oin, is worth 1 point: the loser has borne "
            "off at least one checker. If the loser has borne off none, it is a mars, worth "
            "2.</p>"
            "<p>Koks, worth 3, exists only in the classic rules: the loser has borne off none "
            "and still has a checker in the winner's home or even further back. In the sport "
            "and match rules the same result is a mars.</p>"
        ),
        diagram="end-koks",
    ),
    FaqEntry(
        id="resigning",
        question=_("How much do I lose if I resign?"),
        answer=_(
            "<p>What the position is worth at that moment: the game is scored as if your "
            "opponent had just borne off their last checker. If you have borne off at least "
            "one checker, that is an oin, 1 point; if not, a mars, 2 points, or in the classic "
            "rules a koks, 3 points, when one of your checkers still stands in the opponent's "
            "home or further back. At a table with the cube the value is multiplied by the "
            "cube, and mars and koks count only if the cube has been turned.</p>"
        ),
        diagram="end-mars",
    ),
    FaqEntry(
        id="time-and-connection",
        question=_("What happens if I run out of time or lose the connection?"),
        answer=_(
            "<p>In games between people the server keeps the clock. If your time runs out, you "
            "lose: the game with the standard clock, the whole match with the match clock. "
            "The game is scored from the position at that moment, as if your opponent had "
            "just borne off their last checker, so it is an oin, a mars or a koks.</p>"
            "<p>A lost connection does not end the game straight away. With the match clock "
            "you have 60 seconds to come back; whoever does not return in time loses the whole "
            "match. With the standard clock your time keeps running while you are away, and "
            "after 60 seconds your opponent may claim the win. Either way the game is scored "
            "as above.</p>"
            "<p>If a player does not make their first move within 60 seconds, the game is "
            "called off with no result (in a match's first game, the whole match is).</p>"
            "<p>Games against the computer have no clock unless you choose one.</p>"
        ),
        diagram="time-out",
    ),
    FaqEntry(
        id="aborted-games",
        question=_("What if a player leaves before making a single move?"),
        answer=_(
            "<p>Then the game is aborted: nobody wins, no points are scored and no rating "
            "changes. That happens when a player resigns, declines a double, leaves or lets "
            "the clock run out before their own first play. In a match only a player who has "
            "made no play in the whole match can abort it; once they have played, resigning "
            "a later game is an ordinary loss.</p>"
            "<p>In a rated game an abort still counts against the player who aborted, just "
            "like leaving a lost game: rated games close to them for 5 minutes the first time, "
            "and for longer if it happens again within 7 days. Otherwise two friends could "
            "hand each other rating with games given up at once.</p>"
            "<p>In an arena a win scores only if the loser has made at least 5 plays. A player "
            "whose games end three times in one arena before their fifth play is withdrawn "
            "from its pairing; the points they already have stay theirs.</p>"
        ),
    ),
    FaqEntry(
        id="leaving-a-lost-game",
        question=_("What happens if I leave a lost rated game instead of resigning?"),
        answer=_(
            "<p>Waiting for an opponent who has given up but will not say so wastes a player's "
            "evening, so it has a price. If you lose a rated game on time or by leaving while "
            "your position was lost anyway, rated games are closed to you for a while: 5 "
            "minutes the first time, 15 minutes the second, an hour the third and a whole day "
            "from the fourth, counting the last 7 days. Casual games and games against the "
            "computer stay open, and the lobby and your profile show how long is left.</p>"
            "<p>A position counts as lost when our strongest computer player gives you less "
            "than one chance in five to win it. Resigning a game under way never counts, nor "
            "does running out of time in a position that was still worth playing. A dropped "
            "connection does "
            "not count if you come back within the grace period, and if our server itself "
            "stops, the clocks stand still and nobody loses.</p>"
        ),
    ),
    FaqEntry(
        id="no-move-possible",
        question=_("What if I cannot move at all?"),
        answer=_(
            "<p>Then you lose the turn, and the opponent rolls. It happens more than newcomers "
            "expect, because a single opponent checker is enough to close a point.</p>"
        ),
    ),
    FaqEntry(
        id="declining-a-double",
        question=_("What happens if I decline a double?"),
        answer=_(
            "<p>You lose the game at once, at the stake before the offer, and it counts as an "
            "oin. If you accept, the game goes on at twice the stake, and the cube is yours: "
            "only you may double next. The cube is used only in the classic rules, at tables "
            "that switch it on.</p>"
        ),
    ),
    FaqEntry(
        id="hints",
        question=_("How do hints work, and why are there none in rated games?"),
        answer=_(
            "<p>In a casual game against the computer you can turn hints on under the board. "
            "A Hint button then shows the best play for your roll, and after each of your "
            "plays the page tells you how much it cost compared with the best one, in points "
            "of a single game (a mars counts two). The answers come from the computer's "
            "strongest search, the same one that analyses finished games.</p>"
            "<p>Rated games and games between people have no hints: there they would be help "
            "from outside the game.</p>"
        ),
    ),
]
