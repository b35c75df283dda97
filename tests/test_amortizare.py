"""Testele modelului unic al costului compilării."""

import itertools
import random

import pytest

from curs_compilare import masurare
from curs_compilare.amortizare import apel_de_amortizare, cost_compilare, cost_total


def _prin_cautare(pa, qa, pb, qb, pana_la=100_000):
    """Referința lentă: ultimul n până la care B a fost mai scumpă, plus unu."""
    ultimul_rau = 0
    for n in range(1, pana_la + 1):
        if cost_total(pb, qb, n) > cost_total(pa, qa, n):
            ultimul_rau = n
    if ultimul_rau == pana_la:
        return None
    return ultimul_rau + 1


def test_formula_si_compilarea():
    assert cost_total(9.0, 1.0, 4) == 12.0
    assert cost_compilare(9.0, 1.0) == 8.0
    # aceeași inegalitate scrisă cu compilarea: compilare + n · pe_apel
    assert cost_total(9.0, 1.0, 7) == cost_compilare(9.0, 1.0) + 7 * 1.0


@pytest.mark.parametrize(
    "argumente, asteptat",
    [
        ((3.0, 3.0, 9.0, 1.0), 4),  # egalitate exactă: 9 + 3 · 1 = 12 = 4 · 3
        ((3.0, 3.0, 10.0, 1.0), 5),
        ((1.0, 1.0, 0.5, 0.1), 1),  # primul apel compilat e deja mai ieftin
        ((1.0, 1.0, 5.0, 1.0), None),  # nu e mai rapid pe apel
        ((1.0, 1.0, 5.0, 2.0), None),
        ((1.0, 1.0, 0.5, 2.0), None),  # începe în avans, dar pierde la fiecare apel
        ((5.0, 0.002, 5.0, 0.002), 1),  # identice
        ((30.0, 0.002, 25.0, 0.0015), 1),  # B compilează mai repede și e mai rapidă
    ],
)
def test_cazuri(argumente, asteptat):
    assert apel_de_amortizare(*argumente) == asteptat


def test_la_fel_ca_cautarea_pe_cazuri_aleatoare():
    g = random.Random(5)
    for _ in range(300):
        qa = g.choice([g.uniform(1e-3, 1.0), 0.25, 0.5])
        pa = qa + g.choice([0.0, g.uniform(0, 5.0)])
        qb = g.choice([qa * g.uniform(0.3, 1.2), qa])
        pb = g.choice([g.uniform(0, 20.0), 0.25 * g.randint(0, 40)])
        assert apel_de_amortizare(pa, qa, pb, qb) == _prin_cautare(pa, qa, pb, qb), (pa, qa, pb, qb)


def test_prag_rentabilitate_foloseste_modelul():
    for prima, eager, compilat in itertools.product([0.5, 9.0, 20.0], [0.01, 3.0], [0.004, 1.0, 3.0]):
        assert masurare.prag_rentabilitate(prima, eager, compilat) == apel_de_amortizare(eager, eager, prima, compilat)
