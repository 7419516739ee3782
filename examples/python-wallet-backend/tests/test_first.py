# tests/test_first.py
def test_a_verified_user_gets_a_card(sandbox):
    user = sandbox.v1("POST", "/card-users/create", {"phone": "+221770000001"})["userCard"]
    sandbox.transition("card-users", user["reference"], "passed")  # what the widget would do
    body = {"card_user_reference": user["reference"], "card_brand": "visa", "card_type": "virtual"}
    card = sandbox.v1("POST", "/cards/create", body)["data"]["card"]
    assert card["status"] == "issuing"

    sandbox.advance_clock("5s")  # card issuing takes 5 s of sandbox time: no sleeping

    cards = sandbox.v1("GET", "/cards")["data"]
    assert [(c["reference"], c["status"]) for c in cards] == [(card["reference"], "issued")]
