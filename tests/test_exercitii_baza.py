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


# ---------------------------------------------------------------------------------------------
# Limita de timp, excepțiile explicate, comparația strictă
# ---------------------------------------------------------------------------------------------

import subprocess
import sys
import textwrap
import time

import pytest

from curs_compilare.exercitii import baza


def _bucla_simpla():
    n = 0
    while True:
        n += 1


def _bucla_cu_except_gol():
    while True:
        try:
            sum(range(1000))
        except:  # noqa: E722 — exact greșeala pe care limita trebuie s-o reziste
            pass


def _bucla_in_except_gol():
    n = 0
    try:
        while True:
            n += 1
    except:  # noqa: E722
        pass
    while True:
        try:
            n += 1
        except:  # noqa: E722
            pass


def _somn_lung():
    time.sleep(5)


@pytest.mark.parametrize("functie", [_bucla_simpla, _bucla_cu_except_gol, _bucla_in_except_gol, _somn_lung])
def test_limita_de_timp_opreste_si_buclele_cu_except_gol(functie):
    inceput = time.perf_counter()
    r = _mesaj(lambda: baza.apeleaza(functie, limita_s=0.3))
    durata = time.perf_counter() - inceput
    assert not r and "n-a terminat" in r.mesaj and functie.__name__ in r.mesaj, r.mesaj
    assert durata < 2.0, durata
    # după întrerupere nu rămâne nimic pornit
    assert sys.gettrace() is None and torch.is_grad_enabled()
    assert _mesaj(lambda: str(baza.apeleaza(lambda: 7))).mesaj == "7"


def test_limita_totala_a_verificarii():
    inceput = time.perf_counter()
    r = baza.verificare("T", lambda: [baza.apeleaza(time.sleep, 0.2) for _ in range(20)], limita_s=0.7)
    assert not r and "Verificarea a depășit" in r.mesaj
    assert time.perf_counter() - inceput < 2.0


def test_limita_restabileste_modul_gradientului():
    def opreste_gradientul_si_blocheaza():
        torch.set_grad_enabled(False)
        _bucla_simpla()

    r = _mesaj(lambda: baza.apeleaza(opreste_gradientul_si_blocheaza, limita_s=0.2))
    assert not r and torch.is_grad_enabled()


def test_limita_fara_semnal_in_proces_separat():
    """Ramura fără semnale (Windows, alt fir): firul de pază întrerupe bucla."""
    cod = textwrap.dedent(
        """
        import time, sys
        from curs_compilare.exercitii import baza
        def bucla():
            while True:
                pass
        r = baza.verificare("T", lambda: baza.apeleaza(bucla, limita_s=0.3))
        print("REZULTAT", r.corect, "n-a terminat" in r.mesaj, sys.gettrace() is None)
        print(baza.verificare("T", lambda: str(baza.apeleaza(lambda: 7))).mesaj)
        """
    )
    iesire = subprocess.run(
        [sys.executable, "-c", cod], capture_output=True, text=True, timeout=60,
        env={**__import__("os").environ, "CURS_LIMITA_FARA_SEMNAL": "1"},
    )
    assert "REZULTAT False True True" in iesire.stdout, iesire.stdout + iesire.stderr
    assert iesire.stdout.strip().endswith("7")


def test_exceptia_are_tipul_si_linia_cursantului():
    def functia_cursantului(x):
        y = x + 1
        return y @ torch.ones(5)

    r = _mesaj(lambda: baza.apeleaza(functia_cursantului, torch.ones(3)))
    assert not r and "RuntimeError" in r.mesaj and "linia" in r.mesaj and "return y @ torch.ones(5)" in r.mesaj
    assert "Traceback" not in r.mesaj and len(r.mesaj) < 900


def test_notimplemented_din_pytorch_nu_e_stub():
    def pe_meta(x):
        return torch.nonzero(x.to("meta")).cpu()

    r = _mesaj(lambda: baza.apeleaza(pe_meta, torch.ones(3)))
    assert not r and "n-ai scris soluția" not in r.mesaj


def test_eroarea_verificarii_devine_mesaj():
    def verificare_cu_eroare():
        return torch.equal(torch.ones(2, device="meta"), torch.ones(2))

    r = baza.verificare("T", verificare_cu_eroare)
    assert not r and "Nu am putut verifica" in r.mesaj


def test_compara_tensori_strict_si_fara_traceback():
    asteptat = torch.arange(6.0)
    cazuri = {
        "meta": torch.empty(6, device="meta"),
        "float64": asteptat.double(),
        "Forma": asteptat[:5],
        "int64": torch.arange(6),
    }
    for fragment, obtinut in cazuri.items():
        r = _mesaj(lambda o=obtinut: baza.compara_tensori(o, asteptat))
        assert not r and fragment in r.mesaj, (fragment, r.mesaj)
    assert _mesaj(lambda: baza.compara_tensori(asteptat.clone(), asteptat) or "bine")


def test_cere_numar_accepta_numpy_si_respinge_tensori_mari():
    np = pytest.importorskip("numpy")
    assert baza.cere_numar(np.int64(4), "n") == 4.0
    assert baza.cere_numar(np.float32(0.5), "n") == 0.5
    with pytest.raises(baza.GresealaCursant, match="forma"):
        baza.cere_numar(torch.ones(3), "n")


def test_generator_aleator_reproductibil(monkeypatch):
    monkeypatch.setenv("CURS_SEMINTA", "11")
    assert baza.generator_aleator().random() == baza.generator_aleator().random()
    monkeypatch.delenv("CURS_SEMINTA")
    assert baza.generator_aleator().random() != baza.generator_aleator().random()


def test_numar_precis():
    assert baza.numar_precis(12.345678, "s") == "12,3457 s"
    assert baza.numar_precis(0.0) == "0"


def test_elementele_gresite_numarate_cu_toleranta_comparatiei():
    asteptat = torch.full((2720,), 1.0)
    obtinut = asteptat + 1e-6  # în toleranța lui assert_close
    obtinut[7] = 5.0
    r = _mesaj(lambda: baza.compara_tensori(obtinut, asteptat))
    assert not r and "1 din 2 720" in r.mesaj, r.mesaj


def test_functiile_interzise_sunt_prinse_si_prin_alt_nume():
    def raspunsul_gata(x):
        return x * 2

    alias = raspunsul_gata

    def cursant_prin_alias(x):
        return alias(x) + 0

    interzise = {raspunsul_gata: "raspunsul_gata"}
    for functie in (raspunsul_gata, cursant_prin_alias):
        r = _mesaj(lambda f=functie: baza.apeleaza(f, 3, interzise=interzise))
        assert not r and "raspunsul_gata" in r.mesaj and "scrii tu" in r.mesaj, r.mesaj
    assert sys.getprofile() is None
    assert _mesaj(lambda: str(baza.apeleaza(lambda x: x * 2, 3, interzise=interzise))).mesaj == "6"


def test_limita_pune_la_loc_configuratia_dynamo():
    """O întrerupere căzută într-un `config.patch` al bibliotecii îi sare restaurarea."""

    def schimba_si_blocheaza():
        torch._dynamo.config.assume_static_by_default = False
        _bucla_cu_except_gol()

    r = _mesaj(lambda: baza.apeleaza(schimba_si_blocheaza, limita_s=0.2))
    assert not r and torch._dynamo.config.assume_static_by_default is True


def test_goleste_dynamo_si_fara_jurnale_torch():
    import io
    import sys

    from curs_compilare.exercitii import baza

    f = torch.compile(lambda x: x + 1, backend="eager")
    f(torch.ones(2))
    assert torch._dynamo.utils.counters["frames"]["ok"] > 0
    baza.goleste_dynamo()
    assert not torch._dynamo.utils.counters["frames"]
    tampon = io.StringIO()
    with baza.fara_jurnale_torch(tampon):
        import warnings

        warnings.warn("ascuns")
        sys.stderr.write("jurnal\n")
    assert "jurnal" in tampon.getvalue()
