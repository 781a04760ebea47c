"""The values NumberSpout emits with test.rich, shared by components.py (in the peers
virtualenv) and the tests (which check what arrived): every kind of value both serializers
carry, including text outside ASCII and an integer beyond a double's exact range."""


def payload(n):
    return {"text": u"w\u00f6rd-\u65e5\u672c-%d" % n, "half": n / 2.0, "even": n % 2 == 0,
            "nothing": None, "list": [n, -n, [n]], "big": 2 ** 53 + 1 + n}
