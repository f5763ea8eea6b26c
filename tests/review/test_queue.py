"""The corrections queue and a coup's review page: approve and reject through the test client."""

from __future__ import annotations

import pytest
from django.urls import reverse

from audit.models import AuditEvent
from ledger.models import Transaction
from tables import services
from tables.models import BankTax, Coup, CoupStep
from tables.wording import SELF_REVIEW_REFUSAL, say
from tests.review.history import play_flagged
from tests.tables.play import row_counts

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def test_the_queue_lists_coups_awaiting_approval_oldest_first(client, pit_boss, awaiting) -> None:
    second = play_flagged(awaiting.floor, bank=780, bets=((2, 100),))
    services.correction_submit(actor=awaiting.floor.croupier, coup=second, cards=["4C"])
    client.force_login(pit_boss)
    response = client.get(reverse("review:queue"))
    assert response.status_code == 200
    html = response.content.decode()
    first_at, second_at = (
        html.index(f'id="queue-coup-{awaiting.flagged.pk}"'),
        html.index(f'id="queue-coup-{second.pk}"'),
    )
    assert first_at < second_at
    # the violation in words; its code only for programs (a data attribute, never read out)
    assert '<li data-code="BANKER_SHOULD_DRAW">The banker had to draw.</li>' in html
    assert "Correction submitted by <strong>croupier</strong>" in html
    assert html.count(">Approve</button>") == 2 and html.count(">Reject</button>") == 2
    assert f'href="{reverse("review:coup", args=[awaiting.flagged.pk])}"' in html
    assert [r.coup.pk for r in response.context["rows"]] == [awaiting.flagged.pk, second.pk]
    assert response.context["rows"][0].coup.played_outcome == "player"
    assert response.context["rows"][0].coup.restored_outcome == "banker"


def test_the_queue_is_paginated(client, pit_boss, awaiting, monkeypatch) -> None:
    monkeypatch.setattr("review.views.QUEUE_PAGE_SIZE", 1)
    second = play_flagged(awaiting.floor, bank=780, bets=((2, 100),))
    services.correction_submit(actor=awaiting.floor.croupier, coup=second, cards=["4C"])
    client.force_login(pit_boss)
    page1 = client.get(reverse("review:queue"))
    page2 = client.get(reverse("review:queue"), {"page": 2})
    assert [r.coup.pk for r in page1.context["rows"]] == [awaiting.flagged.pk]
    assert [r.coup.pk for r in page2.context["rows"]] == [second.pk]
    assert "Page 1 of 2" in page1.content.decode() and "Page 2 of 2" in page2.content.decode()
    assert [r.coup.pk for r in client.get(reverse("review:queue"), {"page": 99}).context["rows"]] == [
        second.pk
    ]


def test_an_empty_queue_says_so(client, pit_boss) -> None:
    client.force_login(pit_boss)
    response = client.get(reverse("review:queue"))
    assert 'data-testid="queue-empty"' in response.content.decode()


def test_the_review_page_shows_the_coup_as_recorded_and_as_restored(client, pit_boss, awaiting) -> None:
    client.force_login(pit_boss)
    response = client.get(reverse("review:coup", args=[awaiting.flagged.pk]))
    assert response.status_code == 200
    review = response.context["review"]
    steps = [
        (line.step.index, line.step.kind, line.detail, line.step.actor.username) for line in review.steps
    ]
    assert steps[0] == (1, "bank_declared", "seat 1 · Player 1 (banker) banks 400", "croupier")
    assert steps[1] == (2, "bet", "seat 2 · Player 2 bets 240", "croupier")
    assert steps[10] == (11, "banker_stand", "", "croupier")
    assert review.steps[10].violations == [("BANKER_SHOULD_DRAW", "The banker had to draw.")]
    assert steps[-1] == (13, "correction", "restored with 4C from the shoe: banker", "croupier")
    # as the page says it: the card as its symbol, the outcome in words
    assert say(review.steps[-1].detail) == "restored with 4♣ from the shoe: Banker wins"
    played, restored = review.played, review.restored
    assert (played.player_cards, played.banker_cards) == (("TH", "2C", "6D"), ("3S", "2H"))
    assert (played.player_total, played.banker_total, played.outcome) == (8, 5, "player")
    assert (restored.player_cards, restored.banker_cards) == (("TH", "2C", "6D"), ("3S", "2H", "4C"))
    assert (restored.player_total, restored.banker_total, restored.outcome) == (8, 9, "banker")
    assert (restored.extra_cards, restored.void_cards) == (("4C",), ())
    sp, sr = review.settlement_played, review.settlement_restored
    assert (sp.covered, sp.tax, sp.banker_net, [(p.who, p.amount) for p in sp.punters]) == (
        400, 0, -400, [("seat 3 · Player 3", 160), ("seat 2 · Player 2", 240)]  # betting order
    )  # fmt: skip
    assert (sr.covered, sr.tax, sr.banker_net, [(p.who, p.amount) for p in sr.punters]) == (
        400, 20, 380, [("seat 3 · Player 3", -160), ("seat 2 · Player 2", -240)]
    )  # fmt: skip
    assert review.correction.actor.username == "croupier" and review.refusal == ""
    html = response.content.decode()
    assert 'data-testid="submitted-by">croupier<' in html
    assert ">Approve</button>" in html and ">Reject</button>" in html
    assert "As restored by the rules engine" in html and "Extra cards dealt" in html


def test_approve_with_htmx_settles_the_coup_and_re_renders_the_review(client, pit_boss, awaiting) -> None:
    client.force_login(pit_boss)
    coup = awaiting.flagged
    before = row_counts()
    steps, events, txns = before["CoupStep"], before["AuditEvent"], before["Transaction"]
    response = client.post(reverse("review:coup_approve", args=[coup.pk]), {"return": "detail"}, **HTMX)
    assert response.status_code == 200
    coup.refresh_from_db()
    assert coup.state == Coup.State.SETTLED
    step = coup.steps.order_by("-index").first()
    assert (step.kind, step.actor, step.corrects.kind) == ("correction_approved", pit_boss, "correction")
    assert BankTax.objects.get(coup=coup).amount == 20
    assert CoupStep.objects.count() == steps + 1
    assert AuditEvent.objects.filter(action="tables.coup.correction_approve", actor=pit_boss).count() == 1
    assert Transaction.objects.count() > txns and AuditEvent.objects.count() > events
    html = response.content.decode()
    assert html.lstrip().startswith('<section class="coup-review" id="coup-review" data-state="settled"')
    assert "<html" not in html  # a fragment for htmx to swap in
    assert "Correction approved by <strong>pitboss</strong>" in html
    assert ">Approve</button>" not in html
    assert 'id="queue-count" data-testid="queue-count" hx-swap-oob="true">0</span>' in html


def test_approve_from_a_queue_row_re_renders_the_row(client, pit_boss, awaiting) -> None:
    client.force_login(pit_boss)
    response = client.post(
        reverse("review:coup_approve", args=[awaiting.flagged.pk]), {"return": "row"}, **HTMX
    )
    html = response.content.decode()
    assert html.lstrip().startswith(
        f'<article class="card queue-row is-decided" id="queue-coup-{awaiting.flagged.pk}"'
    )
    assert "Correction approved by pitboss" in html and ">Approve</button>" not in html


def test_approve_without_javascript_redirects_with_a_message(client, pit_boss, awaiting) -> None:
    client.force_login(pit_boss)
    response = client.post(reverse("review:coup_approve", args=[awaiting.flagged.pk]), follow=True)
    assert response.redirect_chain == [(reverse("review:coup", args=[awaiting.flagged.pk]), 302)]
    assert "Correction approved: the restored settlement is final." in response.content.decode()
    awaiting.flagged.refresh_from_db()
    assert awaiting.flagged.state == Coup.State.SETTLED
    from_queue = client.post(reverse("review:coup_approve", args=[awaiting.flagged.pk]), {"return": "row"})
    assert from_queue.status_code == 409  # already settled: a conflict, shown on the review page
    assert "no correction awaits approval." in from_queue.content.decode()


def test_reject_needs_a_reason_and_nothing_changes_without_one(client, pit_boss, awaiting) -> None:
    client.force_login(pit_boss)
    before = row_counts()
    plain = client.post(reverse("review:coup_reject", args=[awaiting.flagged.pk]), {"reason": "   "})
    assert plain.status_code == 400
    assert "Say why the correction is rejected." in plain.content.decode()
    htmx = client.post(
        reverse("review:coup_reject", args=[awaiting.flagged.pk]), {"return": "detail"}, **HTMX
    )
    assert htmx.status_code == 400 and "Say why the correction is rejected." in htmx.content.decode()
    assert row_counts() == before
    awaiting.flagged.refresh_from_db()
    assert awaiting.flagged.state == Coup.State.AWAITING_APPROVAL


def test_reject_sends_the_coup_back_to_the_croupier(client, pit_boss, awaiting) -> None:
    client.force_login(pit_boss)
    coup = awaiting.flagged
    before = row_counts()
    steps, txns = before["CoupStep"], before["Transaction"]
    response = client.post(
        reverse("review:coup_reject", args=[coup.pk]),
        {"reason": "4C was not the next card", "return": "detail"},
        **HTMX,
    )
    assert response.status_code == 200
    coup.refresh_from_db()
    assert coup.state == Coup.State.AWAITING_CORRECTION
    step = coup.steps.order_by("-index").first()
    assert (step.kind, step.actor, step.payload) == (
        "correction_rejected",
        pit_boss,
        {"reason": "4C was not the next card"},
    )
    assert CoupStep.objects.count() == steps + 1
    reversal = Transaction.objects.filter(coup=coup, kind=Transaction.Kind.COUP_REVERSAL).get()
    assert reversal.reverses is not None
    assert (
        reversal.reverses.kind == Transaction.Kind.COUP_PROVISIONAL
        and Transaction.objects.count() == txns + 1
    )
    assert not BankTax.objects.filter(coup=coup).exists()
    event = AuditEvent.objects.filter(action="tables.coup.correction_reject").get()
    assert event.after is not None
    assert (event.actor, event.after["reason"]) == (pit_boss, "4C was not the next card")
    html = response.content.decode()
    assert "Correction rejected by <strong>pitboss</strong>" in html and "4C was not the next card" in html
    assert "The restored game needs 1 more card from the shoe" in html
    assert client.get(reverse("review:queue")).context["rows"] == []


def test_a_pit_boss_cannot_approve_his_own_correction(client, boss_croupier, awaiting, table) -> None:
    coup = play_flagged(awaiting.floor, bank=780, bets=((2, 100),))
    services.correction_submit(actor=boss_croupier, coup=coup, cards=["4C"])
    client.force_login(boss_croupier)
    page = client.get(reverse("review:coup", args=[coup.pk]))
    html = page.content.decode()
    assert SELF_REVIEW_REFUSAL in html
    assert '<button type="button" class="button" disabled>Approve</button>' in html
    row = next(r for r in client.get(reverse("review:queue")).context["rows"] if r.coup.pk == coup.pk)
    assert row.refusal == SELF_REVIEW_REFUSAL
    before = row_counts()
    refused = client.post(reverse("review:coup_approve", args=[coup.pk]))
    assert refused.status_code == 403
    assert "You submitted this correction: another person must review it." in refused.content.decode()
    refused = client.post(reverse("review:coup_reject", args=[coup.pk]), {"reason": "mine"}, **HTMX)
    assert refused.status_code == 403 and "another person must review it" in refused.content.decode()
    assert refused.content.decode().lstrip().startswith('<section class="coup-review"')  # the fragment
    assert row_counts() == before
    coup.refresh_from_db()
    assert coup.state == Coup.State.AWAITING_APPROVAL


def test_a_correction_resubmitted_after_a_rejection_does_not_see_its_card_twice(pit_boss, awaiting) -> None:
    """REVIEW-FIX in correction_submit: the 4C the rejected correction took is already on the table."""
    from tables.models import ShoeCard

    coup = awaiting.flagged
    services.correction_reject(actor=pit_boss, coup=coup, reason="approve after a recount")
    services.correction_submit(actor=awaiting.floor.croupier, coup=coup, cards=["4C"])
    cards = list(ShoeCard.objects.filter(coup=coup).order_by("position").values_list("card", "role"))
    assert cards[-2:] == [("6D", "player"), ("4C", "banker")]
    assert ShoeCard.objects.filter(coup=coup, card="4C").count() == 1
