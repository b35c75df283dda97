"""Verificările capitolului 01 acceptă răspunsurile corecte (în mai multe forme) și resping
greșelile tipice, fiecare cu explicația potrivită: stub, None, formă, tip și dispozitiv greșite,
excepții (la compilare și la rulare), răspunsuri scrise pe de rost, aproape-corecte, ocolirea
lecției, bucle fără sfârșit și răspunsuri prea lente."""

import linecache
import random
import time
from collections import Counter

import numpy as np
import pytest
import torch

from curs_compilare.exercitii import cap01
from curs_compilare.exercitii.baza import NESCRIS
from curs_compilare.inspectie import numara_operatii

OPERATII = ("call_function", "call_method", "call_module")
CORECT_EX2 = {"a": "reduce-overhead", "b": "max-autotune", "c": "default", "d": "fullgraph"}


def _numara(gm, tipuri=OPERATII):
    return sum(1 for n in gm.graph.nodes if n.op in tipuri)


def _verifica(fabrica):
    """`fabrica(vazute)` întoarce backend-ul care adaugă în `vazute`; rulează verificarea."""
    vazute = []
    return cap01.exercitiul_1(fabrica(vazute), vazute)


def _backend_numarare(tipuri=OPERATII):
    def fabrica(vazute):
        def backend(gm, exemple_intrari):
            vazute.append(_numara(gm, tipuri))
            return gm.forward

        return backend

    return fabrica


def _backend_cu_rulare(functie_rulare):
    """Backend care numără corect și întoarce `functie_rulare(gm, exemple)`."""

    def fabrica(vazute):
        def backend(gm, exemple_intrari):
            vazute.append(_numara(gm))
            return functie_rulare(gm, exemple_intrari)

        return backend

    return fabrica


# --- exercițiul 1: răspunsuri corecte ---------------------------------------------------------


def test_ex1_solutia_de_referinta():
    def fabrica(vazute):
        def backend_numarator(gm, exemple_intrari):
            operatii = [nod for nod in gm.graph.nodes if nod.op in ("call_function", "call_method", "call_module")]
            vazute.append(len(operatii))
            return gm.forward

        return backend_numarator

    rezultat = _verifica(fabrica)
    assert rezultat, rezultat.mesaj
    assert "o singură dată" in rezultat.mesaj


def test_ex1_alternative_corecte():
    def cu_numara_operatii(vazute):
        def backend(gm, exemple):
            vazute.append(numara_operatii(gm))
            return gm

        return backend

    def cu_numpy_si_interpretor(vazute):
        def backend(gm, exemple):
            vazute.append(np.int64(sum(n.op not in ("placeholder", "output", "get_attr") for n in gm.graph.nodes)))
            return torch.fx.Interpreter(gm).run

        return backend

    for fabrica in (cu_numara_operatii, cu_numpy_si_interpretor):
        rezultat = _verifica(fabrica)
        assert rezultat, rezultat.mesaj


# --- exercițiul 1: răspunsuri greșite ---------------------------------------------------------


def test_ex1_stub():
    def fabrica(vazute):
        def backend(gm, exemple):
            raise NotImplementedError

        return backend

    rezultat = _verifica(fabrica)
    assert not rezultat and rezultat.mesaj == NESCRIS


def test_ex1_none_si_obiect_neapelabil():
    def fara_return(vazute):
        def backend(gm, exemple):
            vazute.append(_numara(gm))

        return backend

    def intoarce_numar(vazute):
        def backend(gm, exemple):
            vazute.append(_numara(gm))
            return 42

        return backend

    rezultat = _verifica(fara_return)
    assert not rezultat and "întoarce None" in rezultat.mesaj and "gm.forward" in rezultat.mesaj
    rezultat = _verifica(intoarce_numar)
    assert not rezultat and "obiect int" in rezultat.mesaj and "None" not in rezultat.mesaj


def test_ex1_argumente_de_tip_gresit():
    rezultat = cap01.exercitiul_1("backend", [])
    assert not rezultat and "str" in rezultat.mesaj
    rezultat = cap01.exercitiul_1(lambda gm, ex: gm.forward, ())
    assert not rezultat and "tuple" in rezultat.mesaj


def test_ex1_forma_tipul_si_dispozitivul_gresite():
    cazuri = {
        "Forma rezultatului": lambda gm, ex: (lambda *a: [o.sum() for o in gm(*a)]),
        "float64": lambda gm, ex: (lambda *a: [o.double() for o in gm(*a)]),
        "„meta”": lambda gm, ex: (lambda *a: [o.to("meta") for o in gm(*a)]),
        "tensor": lambda gm, ex: (lambda *a: [o.tolist() for o in gm(*a)]),
        "un tuplu cu 1 ieșire": lambda gm, ex: (lambda *a: gm(*a)[0]),
    }
    for fragment, rulare in cazuri.items():
        rezultat = _verifica(_backend_cu_rulare(rulare))
        assert not rezultat and fragment in rezultat.mesaj, (fragment, rezultat.mesaj)
        assert "graful" in rezultat.mesaj  # spune și care graf


def test_ex1_valori_absurde():
    rezultat = _verifica(_backend_cu_rulare(lambda gm, ex: (lambda *a: [o * float("nan") for o in gm(*a)])))
    assert not rezultat and "Valorile diferă" in rezultat.mesaj and "nan" in rezultat.mesaj


def test_ex1_exceptie_la_compilare_cu_tipul_si_linia():
    def fabrica(vazute):
        def backend(gm, exemple):
            vazute.append(_numara(gm))
            return 1 / 0

        return backend

    rezultat = _verifica(fabrica)
    assert not rezultat
    assert rezultat.mesaj.startswith("La compilare, în backend-ul tău")
    assert "ZeroDivisionError" in rezultat.mesaj and "linia" in rezultat.mesaj and "1 / 0" in rezultat.mesaj
    assert "BackendCompilerFailed" not in rezultat.mesaj


def test_ex1_exceptie_la_rulare_nu_e_raportata_drept_compilare():
    def cheie_lipsa(gm, exemple):
        def rulare(*argumente):
            return {}["x"]

        return rulare

    def neimplementat_cu_mesaj(gm, exemple):
        def rulare(*argumente):
            raise NotImplementedError("încă nu")

        return rulare

    rezultat = _verifica(_backend_cu_rulare(cheie_lipsa))
    assert not rezultat and rezultat.mesaj.startswith("La rulare")
    assert "KeyError" in rezultat.mesaj and "compilare" not in rezultat.mesaj
    rezultat = _verifica(_backend_cu_rulare(neimplementat_cu_mesaj))
    assert not rezultat and "NotImplementedError" in rezultat.mesaj and "încă nu" in rezultat.mesaj
    assert rezultat.mesaj != NESCRIS


def test_ex1_exceptie_explicata_si_cu_suppress_errors():
    def fabrica(vazute):
        def backend(gm, exemple):
            raise ValueError("graf nepotrivit")

        return backend

    with torch._dynamo.config.patch(suppress_errors=True):
        rezultat = _verifica(fabrica)
    assert not rezultat and "La compilare" in rezultat.mesaj and "ValueError" in rezultat.mesaj


def test_ex1_raspuns_scris_pe_de_rost(monkeypatch):
    """Numerele corecte dintr-o rulare, repetate în alta (alte funcții, alte forme), nu trec."""
    monkeypatch.setenv("CURS_SEMINTA", "11")
    inregistrate = []

    def fabrica_inregistrare(vazute):
        def backend(gm, exemple):
            vazute.append(_numara(gm))
            inregistrate.append(_numara(gm))
            return gm.forward

        return backend

    assert _verifica(fabrica_inregistrare)
    monkeypatch.setenv("CURS_SEMINTA", "12")
    pozitie = iter(range(10**6))

    def fabrica(vazute):
        def pe_de_rost(gm, exemple):
            vazute.append(inregistrate[next(pozitie) % len(inregistrate)])
            return gm.forward

        return pe_de_rost

    rezultat = _verifica(fabrica)
    assert not rezultat and "numerele corecte" in rezultat.mesaj


def test_ex1_verificarea_e_aleatoare():
    surse = set()
    for semanta in range(4):
        functie, _, _ = cap01._functie_aleatoare(random.Random(semanta), 2, intrari_minime=2)
        surse.add("".join(linecache.getlines(functie.__code__.co_filename)))
    assert len(surse) == 4


def test_ex1_numarare_cu_toate_nodurile_e_numita():
    rezultat = _verifica(_backend_numarare(tipuri=("placeholder", "get_attr", *OPERATII, "output")))
    assert not rezultat
    assert "intrările (`placeholder`)" in rezultat.mesaj and "ieșirea (`output`)" in rezultat.mesaj


def test_ex1_aproape_corect_plus_unu_nu_primeste_un_diagnostic_inventat():
    def fabrica(vazute):
        def backend(gm, exemple):
            vazute.append(_numara(gm) + 1)
            return gm.forward

        return backend

    rezultat = _verifica(fabrica)
    assert not rezultat and "cu 1 mai mare" in rezultat.mesaj
    assert "`output`" not in rezultat.mesaj and "`placeholder`" not in rezultat.mesaj


def test_ex1_lungimea_minus_doi_nu_primeste_un_diagnostic_inventat():
    def fabrica(vazute):
        def backend(gm, exemple):
            vazute.append(len(gm.graph.nodes) - 2)
            return gm.forward

        return backend

    rezultat = _verifica(fabrica)
    assert not rezultat and "numerele corecte" in rezultat.mesaj
    assert "Ai numărat și" not in rezultat.mesaj and "N-ai numărat" not in rezultat.mesaj


def test_ex1_fara_call_module_si_cu_get_attr_sunt_numite():
    rezultat = _verifica(_backend_numarare(tipuri=("call_function", "call_method")))
    assert not rezultat and "symbolic_trace" in rezultat.mesaj
    assert "N-ai numărat apelurile de submodule (`call_module`" in rezultat.mesaj
    rezultat = _verifica(_backend_numarare(tipuri=("get_attr", *OPERATII)))
    assert not rezultat and "citirile de parametri (`get_attr`)" in rezultat.mesaj
    assert "call_module`, de exemplu" not in rezultat.mesaj


def test_ex1_aproape_corect_doar_pe_grafurile_cu_get_attr_nu_e_numit_get_attr():
    def fabrica(vazute):
        def backend(gm, exemple):
            cu_get_attr = any(n.op == "get_attr" for n in gm.graph.nodes)
            vazute.append(_numara(gm) + (2 if cu_get_attr else 0))
            return gm.forward

        return backend

    rezultat = _verifica(fabrica)
    assert not rezultat and "symbolic_trace" in rezultat.mesaj and "cu 2 mai mare" in rezultat.mesaj
    assert "`get_attr`" not in rezultat.mesaj


def test_ex1_doar_call_function_e_respins():
    rezultat = _verifica(_backend_numarare(tipuri=("call_function",)))
    assert not rezultat and "numerele corecte" in rezultat.mesaj


def test_ex1_numarare_la_fiecare_apel_e_numita():
    def fabrica(vazute):
        def backend(gm, exemple):
            numar = _numara(gm)

            def rulare(*argumente):
                vazute.append(numar)
                return gm(*argumente)

            return rulare

        return backend

    rezultat = _verifica(fabrica)
    assert not rezultat and "nu în funcția pe care o întoarce" in rezultat.mesaj


def test_ex1_doua_numere_pe_graf_nu_e_confundat_cu_numararea_la_rulare():
    def fabrica(vazute):
        def backend(gm, exemple):
            vazute.extend([_numara(gm)] * 2)
            return gm.forward

        return backend

    rezultat = _verifica(fabrica)
    assert not rezultat and "exact un număr pentru fiecare graf" in rezultat.mesaj
    assert "funcția pe care o întoarce" not in rezultat.mesaj


def test_ex1_ocolire_rezultat_calculat_la_compilare():
    def o_singura_data(gm, exemple):
        iesiri = gm(*exemple)
        return lambda *argumente: iesiri

    rezultat = _verifica(_backend_cu_rulare(o_singura_data))
    assert not rezultat and "calculat o dată, la compilare" in rezultat.mesaj


def test_ex1_aproape_corect_cu_zgomot_nu_e_numit_rezultat_vechi():
    def cu_zgomot(gm, exemple):
        return lambda *argumente: [o + 1e-3 for o in gm(*argumente)]

    rezultat = _verifica(_backend_cu_rulare(cu_zgomot))
    assert not rezultat and "Valorile diferă" in rezultat.mesaj
    assert "la compilare" not in rezultat.mesaj


def test_ex1_graf_schimbat_de_backend_e_prins():
    def schimba_graful(gm, exemple):
        for nod in gm.graph.nodes:
            if nod.op == "call_function" and nod.target in (torch.sin, torch.cos, torch.tanh, torch.relu, torch.sigmoid):
                nod.target = torch.neg
        gm.recompile()
        return gm.forward

    rezultat = _verifica(_backend_cu_rulare(schimba_graful))
    assert not rezultat and "Valorile diferă" in rezultat.mesaj


def test_ex1_lista_goala_si_elemente_de_tip_gresit():
    rezultat = cap01.exercitiul_1(lambda gm, ex: gm.forward, [])
    assert not rezultat and "goală" in rezultat.mesaj

    def cu_float(vazute):
        def backend(gm, exemple):
            vazute.append(float(_numara(gm)))
            return gm.forward

        return backend

    def cu_lista_de_noduri(vazute):
        def backend(gm, exemple):
            vazute.append([n for n in gm.graph.nodes if n.op in OPERATII])
            return gm.forward

        return backend

    rezultat = _verifica(cu_float)
    assert not rezultat and "numere întregi" in rezultat.mesaj and "float" in rezultat.mesaj
    rezultat = _verifica(cu_lista_de_noduri)
    assert not rezultat and "len(...)" in rezultat.mesaj


def test_ex1_bucla_infinita_cu_except_gol_in_backend(monkeypatch):
    monkeypatch.setattr(cap01, "LIMITA_APEL_S", 1.0)

    def fabrica(vazute):
        def backend(gm, exemple):
            while True:
                try:
                    pass
                except:  # noqa: E722 - exact ce ar scrie un cursant
                    pass

        return backend

    inceput = time.perf_counter()
    rezultat = _verifica(fabrica)
    assert time.perf_counter() - inceput < 8
    assert not rezultat and rezultat.mesaj.startswith("Backend-ul tău n-a terminat")


def test_ex1_bucla_infinita_cu_except_gol_in_functia_intoarsa(monkeypatch):
    monkeypatch.setattr(cap01, "LIMITA_APEL_S", 1.0)

    def fara_sfarsit(gm, exemple):
        def rulare(*argumente):
            while True:
                try:
                    sum(range(100))
                except:  # noqa: E722
                    pass

        return rulare

    inceput = time.perf_counter()
    rezultat = _verifica(_backend_cu_rulare(fara_sfarsit))
    assert time.perf_counter() - inceput < 8
    assert not rezultat and rezultat.mesaj.startswith("Funcția întoarsă de backend-ul tău n-a terminat")


def test_ex1_raspuns_lent_e_oprit_de_limita_totala(monkeypatch):
    monkeypatch.setattr(cap01, "LIMITA_EX1_S", 2.0)

    def lent(gm, exemple):
        def rulare(*argumente):
            time.sleep(0.4)
            return gm(*argumente)

        return rulare

    inceput = time.perf_counter()
    rezultat = _verifica(_backend_cu_rulare(lent))
    assert time.perf_counter() - inceput < 8
    assert not rezultat and "Verificarea a depășit" in rezultat.mesaj


def test_ex1_nu_schimba_starea_generatorului_global():
    torch.manual_seed(1234)
    inainte = torch.get_rng_state()
    vazute = []
    assert cap01.exercitiul_1(_backend_numarare()(vazute), vazute)
    assert torch.equal(torch.get_rng_state(), inainte)


def test_ex1_profilurile_grafurilor_symbolic_trace():
    """Cele două module date direct backend-ului au alte numere de noduri din fiecare fel: de aici
    vin diagnosticele pentru `call_module` și `get_attr`."""
    profil_a = Counter(n.op for n in torch.fx.symbolic_trace(cap01._ModulTrasatA(4, 3, torch.nn.GELU())).graph.nodes)
    profil_b = Counter(n.op for n in torch.fx.symbolic_trace(cap01._ModulTrasatB(4, 3, torch.nn.Tanh())).graph.nodes)
    assert profil_a == Counter(placeholder=1, get_attr=1, call_function=2, call_method=1, call_module=2, output=1)
    assert profil_b == Counter(placeholder=3, get_attr=2, call_function=4, call_method=2, call_module=3, output=1)
    # Fiecare numărare greșită recunoscută se explică într-un singur fel, în ambele ordini.
    for numarate in cap01._NUMARARI_GRESITE:
        for profiluri in ([profil_a, profil_b], [profil_b, profil_a]):
            numere = [sum(p[t] for t in numarate) for p in profiluri]
            assert cap01._explicatie_numarare(numere, profiluri), sorted(numarate)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="are nevoie de un GPU CUDA")
def test_ex1_pe_gpu_corect_si_rezultat_mutat_pe_procesor():
    rezultat = _verifica(_backend_numarare())
    assert rezultat, rezultat.mesaj
    rezultat = _verifica(_backend_cu_rulare(lambda gm, ex: (lambda *a: [o.cpu() for o in gm(*a)])))
    assert not rezultat and "pe GPU" in rezultat.mesaj and "cuda" in rezultat.mesaj


# --- exercițiul 2 -------------------------------------------------------------------------------


def test_ex2_solutia_si_alternative_corecte():
    assert cap01.exercitiul_2(CORECT_EX2)
    alternative = [
        dict(CORECT_EX2, d="fullgraph=True"),
        dict(CORECT_EX2, a="Reduce_Overhead", b="mode='max-autotune'"),
        {k.upper(): v for k, v in CORECT_EX2.items()},
        dict(CORECT_EX2, c=np.str_("default")),
        dict(CORECT_EX2, e="default"),
    ]
    for alegeri in alternative:
        rezultat = cap01.exercitiul_2(alegeri)
        assert rezultat, (alegeri, rezultat.mesaj)
        assert "CUDA Graphs" in rezultat.mesaj


def test_ex2_stub_none_si_tipuri_gresite():
    rezultat = cap01.exercitiul_2({"a": "...", "b": "...", "c": "...", "d": "..."})
    assert not rezultat and "n-ai ales" in rezultat.mesaj and "a, b, c, d" in rezultat.mesaj
    rezultat = cap01.exercitiul_2(dict(CORECT_EX2, c=...))
    assert not rezultat and "n-ai ales pentru situațiile: c" in rezultat.mesaj
    rezultat = cap01.exercitiul_2(None)
    assert not rezultat and "dicționar" in rezultat.mesaj and "NoneType" in rezultat.mesaj
    rezultat = cap01.exercitiul_2(list(CORECT_EX2.values()))
    assert not rezultat and "dicționar" in rezultat.mesaj
    rezultat = cap01.exercitiul_2(dict(CORECT_EX2, a=None))
    assert not rezultat and "ai scris None" in rezultat.mesaj
    rezultat = cap01.exercitiul_2(dict(CORECT_EX2, b=["max-autotune"]))
    assert not rezultat and "obiect list" in rezultat.mesaj
    rezultat = cap01.exercitiul_2(dict(CORECT_EX2, a=np.array(["reduce-overhead"])))
    assert not rezultat and "ndarray" in rezultat.mesaj
    rezultat = cap01.exercitiul_2(dict(CORECT_EX2, d=True))
    assert not rezultat and "bool" in rezultat.mesaj
    rezultat = cap01.exercitiul_2({"a": "reduce-overhead"})
    assert not rezultat and "b, c, d" in rezultat.mesaj


def test_ex2_variante_inexistente():
    rezultat = cap01.exercitiul_2(dict(CORECT_EX2, c="rapid"))
    assert not rezultat and "alege una dintre" in rezultat.mesaj and "nu e printre variante" not in rezultat.mesaj
    rezultat = cap01.exercitiul_2(dict(CORECT_EX2, b="max-autotune-no-cudagraphs"))
    assert not rezultat and "nu e printre variante" in rezultat.mesaj


def test_ex2_ocolire_cu_text_egal_cu_orice():
    class EgalCuOrice(str):
        def __eq__(self, altul):
            return True

        def __ne__(self, altul):
            return False

        __hash__ = str.__hash__

    rezultat = cap01.exercitiul_2(dict.fromkeys("abcd", EgalCuOrice("oricare")))
    assert not rezultat and "'oricare'" in rezultat.mesaj


def test_ex2_diagnostic_anume_doar_pentru_confuzia_lui():
    rezultat = cap01.exercitiul_2(dict(CORECT_EX2, a="max-autotune"))
    assert not rezultat and "situația a" in rezultat.mesaj and "activează și el CUDA Graphs" in rezultat.mesaj
    rezultat = cap01.exercitiul_2(dict(CORECT_EX2, a="default"))
    assert not rezultat and "situația a" in rezultat.mesaj and "activează și el" not in rezultat.mesaj
    assert "Modul implicit nu folosește CUDA Graphs" in rezultat.mesaj
    rezultat = cap01.exercitiul_2(dict(CORECT_EX2, c="max-autotune"))
    assert not rezultat and "Indiciu:" in rezultat.mesaj and "CUDA Graphs" not in rezultat.mesaj
    rezultat = cap01.exercitiul_2(dict(CORECT_EX2, d="default"))
    assert not rezultat and "nu e o eroare" in rezultat.mesaj


def test_ex2_toate_gresite_sunt_enumerate():
    rezultat = cap01.exercitiul_2(dict.fromkeys("abcd", "default"))
    assert not rezultat
    assert all(f"situația {s}" in rezultat.mesaj for s in "abd") and "situația c" not in rezultat.mesaj
