"""Testele mecanismului comun de verificare."""

import torch

from curs_compilare.exercitii.baza import (
    GresealaCursant,
    Rezultat,
    apeleaza,
    cere_numar,
    compara_tensori,
    verificare,
)


def _mesaj(corp):
    r = verificare("Test", corp)
    assert isinstance(r, Rezultat)
    return r


def test_neimplementat_devine_mesaj_in_romana():
    def stub():
        raise NotImplementedError

    r = _mesaj(lambda: apeleaza(stub))
    assert not r and "n-ai scris soluția" in r.mesaj
    assert "Traceback" not in r.text()


def test_exceptie_oarecare_devine_explicatie():
    r = _mesaj(lambda: apeleaza(lambda: 1 / 0))
    assert not r and "ZeroDivisionError" in r.mesaj and "împărțit la zero" in r.mesaj


def test_obiect_neapelabil():
    r = _mesaj(lambda: apeleaza(42))
    assert not r and "funcție" in r.mesaj


def test_compara_tensori_toate_greselile():
    asteptat = torch.arange(6.0).reshape(2, 3)
    cazuri = {
        "None": None,
        "tensor": [1, 2],
        "Forma": asteptat.reshape(3, 2),
        "Tipul": asteptat.double(),
        "Valorile diferă": asteptat + torch.tensor([[0, 0, 0], [0, 0, 1.0]]),
    }
    for fragment, obtinut in cazuri.items():
        r = _mesaj(lambda o=obtinut: compara_tensori(o, asteptat))
        assert not r and fragment in r.mesaj, (fragment, r.mesaj)
    r = _mesaj(lambda: compara_tensori(asteptat.clone(), asteptat) or "bine")
    assert r and r.mesaj == "bine"


def test_valorile_diferite_arata_pozitia():
    asteptat = torch.zeros(4)
    obtinut = torch.tensor([0.0, 0.0, 5.0, 0.0])
    r = _mesaj(lambda: compara_tensori(obtinut, asteptat))
    assert "(2,)" in r.mesaj and "1 din 4" in r.mesaj


def test_cere_numar():
    assert cere_numar(3, "x") == 3.0
    assert cere_numar(torch.tensor(2.5), "x") == 2.5
    for rau, fragment in [(None, "None"), ("3", "str"), (float("nan"), "nan"), (True, "bool")]:
        try:
            cere_numar(rau, "valoarea")
        except GresealaCursant as e:
            assert fragment in str(e)
        else:
            raise AssertionError(f"{rau!r} trebuia respins")


def test_rezultatul_se_afiseaza_in_html_si_text():
    r = Rezultat("Exercițiul 9", False, "greșit <aici>")
    assert "❌" in repr(r) and "&lt;aici&gt;" in r._repr_html_()
    assert bool(Rezultat("E", True, "")) is True
