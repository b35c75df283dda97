"""Verificările capitolului 06 acceptă răspunsurile corecte (în mai multe forme) și resping
greșelile tipice cu explicația potrivită, fără traceback și fără să se blocheze.

Verificările rulează pe procesor oriunde (exercițiile 1 și 3 compilează modele mici pe CPU), deci
nu au ramuri de GPU. Semința e fixată (`CURS_SEMINTA`), ca mărimile alese la întâmplare să fie
aceleași în toate testele și compilările să se ia din cache-ul lui Inductor după prima.

Fiecare diagnostic care numește o greșeală anume e încercat cu greșeala pe care o numește și,
unde se poate confunda, cu una apropiată, care nu e ea."""

import copy
import math
import time

import pytest
import torch
from torch.optim.lr_scheduler import LambdaLR

from curs_compilare.amortizare import cost_total
from curs_compilare.exercitii import cap06
from curs_compilare.exercitii.baza import NESCRIS
from curs_compilare.exercitii.cap06 import RATA_MAXIMA, rata_la_pasul
from curs_compilare.modele import BlocTransformer


@pytest.fixture(autouse=True)
def _seminta_fixa(monkeypatch):
    monkeypatch.setenv("CURS_SEMINTA", "6")
    yield
    torch._dynamo.reset()


def _respins(rezultat, *fragmente, absente=()):
    assert not rezultat, rezultat.text()
    for fragment in fragmente:
        assert fragment in rezultat.mesaj, rezultat.mesaj
    for fragment in absente:
        assert fragment not in rezultat.mesaj, rezultat.mesaj
    assert "Traceback" not in rezultat.text()
    return rezultat


def _bucla_cu_except_gol(*argumente):
    while True:
        try:
            while True:
                pass
        except:  # noqa: E722 — exact greșeala pe care limita de timp trebuie s-o reziste
            pass


def _stub(*argumente):
    raise NotImplementedError


# =============================================================================================
# Programul ratei
# =============================================================================================


def test_rata_la_pasul_incalzire_si_cosinus():
    n = 30  # încălzire pe 3 pași
    assert rata_la_pasul(0, n) == pytest.approx(RATA_MAXIMA / 3)
    assert rata_la_pasul(2, n) == pytest.approx(RATA_MAXIMA)
    assert rata_la_pasul(3, n) < RATA_MAXIMA
    assert rata_la_pasul(n - 1, n) == pytest.approx(RATA_MAXIMA / 10)
    assert rata_la_pasul(n + 5, n) == pytest.approx(RATA_MAXIMA / 10)
    rate = [rata_la_pasul(t, n) for t in range(2, n)]
    assert all(a > b for a, b in zip(rate, rate[1:]))  # coboară strict după încălzire
    assert rata_la_pasul(0, 5) == pytest.approx(RATA_MAXIMA)  # încălzirea are cel puțin un pas


# =============================================================================================
# Exercițiul 1
# =============================================================================================


def _pregateste(creeaza_rata=lambda: torch.tensor(RATA_MAXIMA), optimizator=torch.optim.AdamW,
                factor=lambda n: (lambda t: rata_la_pasul(t, n) / RATA_MAXIMA), pas="bun", compileaza=True,
                pe_copie=False, **optiuni):
    """O familie de răspunsuri la exercițiul 1, corecte sau cu câte o greșeală."""

    def pregateste_optimizarea(model, pasi_totali):
        parametri = copy.deepcopy(model).parameters() if pe_copie else model.parameters()
        opt = optimizator(parametri, lr=creeaza_rata(), **optiuni)
        planificator = LambdaLR(opt, factor(pasi_totali))

        def pas_optimizare():
            if pas == "inainte":
                planificator.step()
                opt.step()
            elif pas == "fara_planificator":
                opt.step()
            else:
                opt.step()
                planificator.step()

        return opt, torch.compile(pas_optimizare) if compileaza else pas_optimizare

    return pregateste_optimizarea


def _cu_fill(model, pasi_totali):
    """Alternativă corectă: fără planificator, tensorul ratei schimbat pe loc, în afara funcției
    compilate (care primește doar pasul optimizatorului)."""
    rata = torch.tensor(RATA_MAXIMA)
    opt = torch.optim.AdamW(model.parameters(), lr=rata)
    stare = {"t": 0}

    @torch.compile
    def pas_compilat():
        opt.step()

    def pas_optimizare():
        rata.fill_(rata_la_pasul(stare["t"], pasi_totali))
        pas_compilat()
        stare["t"] += 1

    return opt, pas_optimizare


def test_ex1_accepta_solutia_cu_lambdalr():
    rezultat = cap06.exercitiul_1(_pregateste())
    assert rezultat, rezultat.text()
    assert "nu mai recompilează" in rezultat.mesaj and "1 graf" in rezultat.mesaj


def test_ex1_accepta_alternativa_cu_fill_si_rata_float64():
    assert cap06.exercitiul_1(_cu_fill), cap06.exercitiul_1(_cu_fill).text()
    rezultat = cap06.exercitiul_1(_pregateste(creeaza_rata=lambda: torch.tensor(RATA_MAXIMA, dtype=torch.float64)))
    assert rezultat, rezultat.text()


@pytest.mark.parametrize(
    "raspuns, fragmente",
    [
        (lambda m, n: None, ["None", "return optimizator, pas_optimizare"]),
        (lambda m, n: torch.optim.AdamW(m.parameters(), lr=torch.tensor(RATA_MAXIMA)), ["doar optimizatorul"]),
        (lambda m, n: "AdamW", ["perechea", "str"]),
        (lambda m, n: tuple(reversed(_pregateste(compileaza=False)(m, n))), ["ordinea inversă"]),
        (lambda m, n: (torch.optim.AdamW(m.parameters(), lr=torch.tensor(RATA_MAXIMA)), 3), ["pas_optimizare", "int"]),
        (lambda m, n: ("optimizator", lambda: None), ["optimizatorul", "str"]),
    ],
    ids=["None", "doar_optimizatorul", "text", "ordine_inversa", "pas_nu_e_functie", "optimizator_text"],
)
def test_ex1_respinge_tipuri_gresite(raspuns, fragmente):
    _respins(cap06.exercitiul_1(raspuns), *fragmente)


def test_ex1_nescris_si_exceptie():
    rezultat = cap06.exercitiul_1(_stub)
    assert not rezultat and rezultat.mesaj == NESCRIS

    def cu_eroare(model, pasi_totali):
        return torch.optim.AdamW(model.parametri(), lr=torch.tensor(RATA_MAXIMA))

    _respins(cap06.exercitiul_1(cu_eroare), "AttributeError", "linia", "parametri")


@pytest.mark.parametrize(
    "raspuns, fragmente",
    [
        (_pregateste(optimizator=torch.optim.SGD), ["SGD, nu AdamW"]),
        (_pregateste(optimizator=torch.optim.Adam), ["Adam, nu AdamW", "decuplat"]),
        (_pregateste(weight_decay=0.0), ["weight_decay=0.0", "chiar Adam"]),
        (_pregateste(betas=(0.8, 0.99)), ["betas=(0.8, 0.99)", "valorile implicite"]),
        (_pregateste(pe_copie=True), ["alt model", "model.parameters()"]),
        (_pregateste(creeaza_rata=lambda: torch.tensor(RATA_MAXIMA, dtype=torch.bfloat16)), ["bfloat16", "float32"]),
        (_pregateste(creeaza_rata=lambda: torch.tensor([RATA_MAXIMA, RATA_MAXIMA])), ["ValueError", "1-element"]),
    ],
    ids=["SGD", "Adam", "fara_weight_decay", "alte_betas", "alt_model", "rata_bfloat16", "rata_vector"],
)
def test_ex1_respinge_alt_optimizator_fara_sa_ruleze_pasii(raspuns, fragmente):
    inceput = time.perf_counter()
    _respins(cap06.exercitiul_1(raspuns), *fragmente)
    assert time.perf_counter() - inceput < 5  # se vede din optimizator, fără compilare


def test_ex1_rata_float_e_ocolirea_lectiei():
    """Rata ca număr Python: Dynamo ar recompila la fiecare pas; respinsă pe loc, cu motivul."""
    _respins(cap06.exercitiul_1(_pregateste(creeaza_rata=lambda: RATA_MAXIMA)), "nu un tensor", "constantă", "recompilează")


def test_ex1_pas_necompilat_e_respins_chiar_daca_parametrii_sunt_buni():
    _respins(cap06.exercitiul_1(_pregateste(compileaza=False)), "Parametrii sunt corecți", "n-a trecut prin Dynamo")


def test_ex1_aproape_corect_planificatorul_inainte_de_pas():
    _respins(cap06.exercitiul_1(_pregateste(pas="inainte")), "rata pasului următor", "întâi `optimizator.step()`")


def test_ex1_planificatorul_care_nu_avanseaza():
    _respins(cap06.exercitiul_1(_pregateste(pas="fara_planificator")), "programul nu avansează")


@pytest.mark.parametrize("total", [15, 20, 35])
def test_ex1_pe_de_rost_un_total_fix_in_loc_de_pasi_totali(total):
    """Un program scris pentru un total fix, oricât ar cere `pasi_totali`: cele două sesiuni (12–19
    și 30–39 de pași) au totaluri diferite, deci un total fix pică măcar într-una, cu numele lui."""
    _respins(
        cap06.exercitiul_1(_pregateste(factor=lambda n: (lambda t: rata_la_pasul(t, total) / RATA_MAXIMA))),
        f"programul pentru {total} de pași" if total >= 20 else f"programul pentru {total} pași", "fix în cod",
    )


@pytest.mark.parametrize("incalzire", [1, 2, 3])
def test_ex1_pe_de_rost_o_incalzire_fixa(incalzire):
    """Încălzirea scrisă pe de rost (de exemplu 2 pași, cât dădeau odinioară toate totalurile
    verificării): o sesiune are încălzirea de 1 pas, cealaltă de 3, deci orice lungime fixă pică.
    O încălzire fixă de 1 pas e chiar cosinusul fără încălzire: diagnosticul lui."""
    fragmente = (["lipsește încălzirea"] if incalzire == 1 else
                 [f"Încălzirea ta are mereu {incalzire} pași", "fix în cod"])
    _respins(
        cap06.exercitiul_1(_pregateste(factor=lambda n: (lambda t: cap06._cu_incalzirea(t, n, incalzire) / RATA_MAXIMA))),
        *fragmente,
    )


def test_sesiunile_ex1_au_incalziri_diferite():
    (a_min, a_max), (b_min, b_max) = cap06.SESIUNI_1
    incalziri_a = {max(1, n // 10) for n in range(a_min, a_max + 1)}
    incalziri_b = {max(1, n // 10) for n in range(b_min, b_max + 1)}
    assert len(incalziri_a) == len(incalziri_b) == 1 and not incalziri_a & incalziri_b
    assert set(range(a_min, a_max + 1)).isdisjoint(range(b_min, b_max + 1))


def test_ex1_momeala_compilata_langa_un_pas_eager():
    """Pasul optimizatorului eager, plus o funcție compilată oarecare, ca Dynamo să captureze un graf:
    verificarea se uită la pasul optimizatorului însuși (cârligul lui, `is_compiling()`)."""
    def cu_momeala(model, pasi_totali):
        opt = torch.optim.AdamW(model.parameters(), lr=torch.tensor(RATA_MAXIMA))
        planificator = LambdaLR(opt, lambda t: rata_la_pasul(t, pasi_totali) / RATA_MAXIMA)
        momeala = torch.compile(lambda x: x * 2 + 1)

        def pas_optimizare():
            opt.step()
            planificator.step()
            momeala(torch.ones(4))

        return opt, pas_optimizare

    _respins(cap06.exercitiul_1(cu_momeala), "nu pasul optimizatorului", "a rulat eager")


def test_ex1_pasul_ascuns_de_dynamo_cu_disable():
    def ascuns(model, pasi_totali):
        opt = torch.optim.AdamW(model.parameters(), lr=torch.tensor(RATA_MAXIMA))
        planificator = LambdaLR(opt, lambda t: rata_la_pasul(t, pasi_totali) / RATA_MAXIMA)
        pas_eager = torch.compiler.disable(opt.step)

        @torch.compile
        def pas_optimizare():
            pas_eager()
            planificator.step()
            return torch.ones(2) * 2  # ceva compilat totuși

        return opt, pas_optimizare

    _respins(cap06.exercitiul_1(ascuns), "Parametrii sunt corecți")


def test_ex1_unealta_cursului_cu_un_planificator_lipit_e_respinsa():
    """`antrenare.optimizare_cu_rata_tensor` face deja AdamW cu rata în tensor și pasul compilat, cele
    două lucruri pe care le exersează exercițiul: respinsă, fără să ruleze pașii."""
    from curs_compilare.capitole.cap06_modelul_intreg import optimizare_cu_rata_tensor

    def cu_unealta(model, pasi_totali):
        opt, pas = optimizare_cu_rata_tensor(model, RATA_MAXIMA)
        planificator = LambdaLR(opt, lambda t: rata_la_pasul(t, pasi_totali) / RATA_MAXIMA)

        def pas_optimizare():
            pas()
            planificator.step()

        return opt, pas_optimizare

    inceput = time.perf_counter()
    _respins(cap06.exercitiul_1(cu_unealta), "optimizare_cu_rata_tensor", "scrie-le tu")
    assert time.perf_counter() - inceput < 5


def test_ex1_contor_python_in_functia_compilata_recompileaza():
    def cu_contor(model, pasi_totali):
        opt = torch.optim.AdamW(model.parameters(), lr=torch.tensor(RATA_MAXIMA))
        stare = {"t": 0}

        @torch.compile
        def pas_optimizare():
            opt.param_groups[0]["lr"].fill_(rata_la_pasul(stare["t"], pasi_totali))
            opt.step()
            stare["t"] += 1

        return opt, pas_optimizare

    _respins(cap06.exercitiul_1(cu_contor), "s-a recompilat la pasul", "contor", absente=("a devenit un float",))


@pytest.mark.parametrize(
    "program, fragment",
    [
        (lambda t, n: rata_la_pasul(0, n), "programul nu avansează"),
        (lambda t, n: rata_la_pasul(t + 1, n), "rata pasului următor"),
        (lambda t, n: rata_la_pasul(2 * t, n), "de două ori"),
        (lambda t, n: rata_la_pasul(t, n) * RATA_MAXIMA, "mai mici decât programul"),
        (lambda t, n: rata_la_pasul(t, n) / RATA_MAXIMA, "mai mari decât programul"),
        (cap06._fara_incalzire, "lipsește încălzirea"),
        (cap06._doar_incalzire, "lipsește coborârea"),
        (lambda t, n: 0.0, "nu s-au schimbat deloc"),
        (lambda t, n: rata_la_pasul(t, n) * (1.05 if t == 7 else 1.0), "la 1 pas din 24"),
    ],
    ids=["constanta", "pasul_urmator", "de_doua_ori", "nedivizat", "inmultit", "fara_incalzire", "fara_cosinus",
         "nicio_actualizare", "un_pas_gresit"],
)
def test_ex1_diagnosticul_programului_numeste_doar_greseala_potrivita(program, fragment):
    n = 24
    mesaj = cap06._diagnostic_rate_1([(t, program(t, n)) for t in range(n)], n)
    assert fragment in mesaj, mesaj
    if fragment == "la 1 pas din 24":  # aproape corect: niciun diagnostic numit, doar pasul greșit
        assert "pasul 7" in mesaj and "de două ori" not in mesaj and "nu avansează" not in mesaj


def test_ex1_rata_citita_din_actualizare_e_exacta():
    """AdamW e liniar în rată: o actualizare cu rata r față de umbra cu rata 1 dă exact r."""
    inainte = torch.tensor([1.0, -2.0, 0.5], dtype=torch.float64)
    directie = torch.tensor([0.3, 0.1, -0.2], dtype=torch.float64)
    rata, abatere = cap06._rata_din_actualizare(inainte, inainte + 0.25 * directie, inainte + directie)
    assert rata == pytest.approx(0.25) and abatere < 1e-12
    _, abatere = cap06._rata_din_actualizare(inainte, inainte + torch.tensor([0.1, 0.0, 0.0], dtype=torch.float64), inainte + directie)
    assert abatere > 0.1


def test_ex1_bucla_fara_sfarsit_cu_except_gol(monkeypatch):
    monkeypatch.setattr(cap06, "LIMITA_PREGATIRE_1_S", 0.3)
    inceput = time.perf_counter()
    _respins(cap06.exercitiul_1(_bucla_cu_except_gol), "n-a terminat", "300 ms")
    assert time.perf_counter() - inceput < 3


def test_ex1_bucla_fara_sfarsit_in_pasul_compilat(monkeypatch):
    """Bucla e în funcția compilată: Dynamo o urmărește la nesfârșit; limita o oprește."""
    monkeypatch.setattr(cap06, "LIMITA_PRIMUL_PAS_1_S", 0.5)

    def pregateste(model, pasi_totali):
        opt = torch.optim.AdamW(model.parameters(), lr=torch.tensor(RATA_MAXIMA))
        return opt, torch.compile(_bucla_cu_except_gol)

    inceput = time.perf_counter()
    _respins(cap06.exercitiul_1(pregateste), "pas_optimizare()", "pasul 0", "n-a terminat")
    assert time.perf_counter() - inceput < 5


# =============================================================================================
# Exercițiul 2
# =============================================================================================


def _alege(cost=lambda m, n: cost_total(m["prima_s"], m["pe_apel_ms"] / 1000, n), latenta=True, memorie=True,
           strict=False):
    """O familie de răspunsuri la exercițiul 2: corect sau cu câte o greșeală."""

    def alege_modul(masuratori, cereri, latenta_max_ms, memorie_max_mib):
        def incape(valoare, limita):
            return valoare < limita if strict else valoare <= limita

        valide = [
            nume for nume, m in masuratori.items()
            if (not latenta or incape(m["pe_apel_ms"], latenta_max_ms))
            and (not memorie or incape(m["memorie_mib"], memorie_max_mib))
        ]
        return min(valide, key=lambda nume: cost(masuratori[nume], cereri)) if valide else None

    return alege_modul


def _alege_de_mana(masuratori, cereri, latenta_max_ms, memorie_max_mib):
    """Alternativă corectă: bucla scrisă de mână, cu formula desfăcută."""
    cel_mai_bun, cost_minim = None, math.inf
    for nume, m in masuratori.items():
        if m["pe_apel_ms"] > latenta_max_ms or m["memorie_mib"] > memorie_max_mib:
            continue
        total = m["prima_s"] + (cereri - 1) * m["pe_apel_ms"] / 1000
        if total < cost_minim:
            cel_mai_bun, cost_minim = nume, total
    return cel_mai_bun


def test_ex2_accepta_referinta_si_alternativa():
    for raspuns in (_alege(), _alege_de_mana):
        rezultat = cap06.exercitiul_2(raspuns)
        assert rezultat, rezultat.text()
        assert "nu se amortizează" in rezultat.mesaj


def test_ex2_accepta_pe_multe_seminte(monkeypatch):
    for seminta in range(30):
        monkeypatch.setenv("CURS_SEMINTA", str(seminta))
        assert cap06.exercitiul_2(_alege_de_mana)


def test_ex2_cifrele_din_enunt():
    e = cap06.EXEMPLU_2
    assert _alege()(e["masuratori"], e["cereri"], e["latenta_max_ms"], e["memorie_max_mib"]) == "max-autotune-no-cudagraphs"
    assert cap06._departare_2(dict(e, fel="enunt")) > 0.01


@pytest.mark.parametrize(
    "raspuns, fragment",
    [
        (_alege(cost=lambda m, n: m["pe_apel_ms"]), "ignori timpul primului apel"),
        (_alege(cost=lambda m, n: m["prima_s"]), "ignori timpul pe apel"),
        (_alege(memorie=False), "ignoră constrângerea de memorie"),
        (_alege(latenta=False), "ignoră constrângerea de latență"),
        (_alege(latenta=False, memorie=False), "ignoră ambele constrângeri"),
        (_alege(strict=True), "comparație strictă"),
        (_alege(cost=lambda m, n: m["prima_s"] + n * m["pe_apel_ms"] / 1000), "apelurile de după primul"),
        (_alege(cost=lambda m, n: m["prima_s"] + (n - 1) * m["pe_apel_ms"]), "milisecunde adunate la secunde"),
    ],
    ids=["fara_compilare", "doar_primul_apel", "fara_memorie", "fara_latenta", "fara_constrangeri", "strict",
         "cereri_dupa_primul", "ms_cu_s"],
)
def test_ex2_numeste_greseala_potrivita(monkeypatch, raspuns, fragment):
    toate = [
        "ignori timpul primului apel", "ignori timpul pe apel", "ignoră constrângerea de memorie",
        "ignoră constrângerea de latență", "ignoră ambele constrângeri", "comparație strictă",
        "apelurile de după primul", "milisecunde adunate la secunde",
    ]
    for seminta in ("6", "11", "29"):
        monkeypatch.setenv("CURS_SEMINTA", seminta)
        _respins(cap06.exercitiul_2(raspuns), fragment, "ai ales", absente=[t for t in toate if t != fragment])


def test_ex2_aproape_corect_fara_diagnostic_numit():
    """Corect, mai puțin când alege dintre moduri cu primul apel de peste 100 s (le penalizează
    cu 50%): greșit doar în unele cazuri, fără o greșeală cunoscută."""
    def aproape(masuratori, cereri, latenta_max_ms, memorie_max_mib):
        valide = {n: m for n, m in masuratori.items() if m["pe_apel_ms"] <= latenta_max_ms and m["memorie_mib"] <= memorie_max_mib}
        if not valide:
            return None
        return min(valide, key=lambda n: cost_total(valide[n]["prima_s"], valide[n]["pe_apel_ms"] / 1000, cereri)
                   * (1.5 if valide[n]["prima_s"] > 100 else 1.0))

    rezultat = _respins(cap06.exercitiul_2(aproape), "ai ales", "în total")
    assert "Alegerile tale" not in rezultat.mesaj


@pytest.mark.parametrize(
    "raspuns, fragmente",
    [
        (lambda *a: "default", ["Întorci mereu 'default'"]),
        (lambda *a: "max-autotune-no-cudagraphs", ["Întorci mereu 'max-autotune-no-cudagraphs'"]),
        (lambda m, *a: "max_autotune", ["mereu 'max_autotune'", "nu e în dict"]),
        (lambda m, c, l, mem: _alege()(m, c, l, mem) and _alege()(m, c, l, mem).upper(), ["nu e unul dintre modurile"]),
        (lambda m, *a: next(iter(m.values())), ["un dict", "nu numele lui"]),
        (lambda m, c, *a: (_alege_de_mana(m, c, *a), 1.0), ["un tuple", "Trebuia numele modului"]),
        (lambda *a: None, ["ai ales None", "Greșit în"]),
    ],
    ids=["mereu_default", "pe_de_rost_enuntul", "nume_gresit_mereu", "litere_mari", "dict", "tuplu", "None"],
)
def test_ex2_respinge_tipuri_si_nume_gresite(raspuns, fragmente):
    _respins(cap06.exercitiul_2(raspuns), *fragmente)


def test_ex2_referinta_verificarii_e_respinsa():
    _respins(cap06.exercitiul_2(lambda m, c, l, mem: cap06._alege(m, c, l, mem)), "verificari._alege")
    _respins(cap06.exercitiul_2(lambda m, c, l, mem: cap06._alege_corect(
        {"masuratori": m, "cereri": c, "latenta_max_ms": l, "memorie_max_mib": mem})), "verificari._alege_corect")


def test_ex2_exemplul_din_enunt_foloseste_memoria_ceruta():
    """Memoria din enunț e cea cerută de mod (creșterea la un apel plus grupul grafurilor CUDA): modurile
    cu grafuri CUDA cer cel mai mult, iar limita le elimină."""
    e = cap06.EXEMPLU_2["masuratori"]
    limita = cap06.EXEMPLU_2["memorie_max_mib"]
    assert e["reduce-overhead"]["memorie_mib"] > limita and e["max-autotune"]["memorie_mib"] > limita
    assert e["default"]["memorie_mib"] <= e["eager"]["memorie_mib"] <= limita


def test_ex2_ocolirea_primul_mod_valid():
    """Primul mod care respectă constrângerile, fără să compare costurile."""
    def primul_valid(masuratori, cereri, latenta_max_ms, memorie_max_mib):
        return next((n for n, m in masuratori.items()
                     if m["pe_apel_ms"] <= latenta_max_ms and m["memorie_mib"] <= memorie_max_mib), None)

    _respins(cap06.exercitiul_2(primul_valid), "ai ales", "în total")


def test_ex2_nescris_exceptie_si_bucla(monkeypatch):
    rezultat = cap06.exercitiul_2(_stub)
    assert not rezultat and rezultat.mesaj == NESCRIS
    _respins(cap06.exercitiul_2(lambda m, *a: m["eager"]["prima"]), "KeyError", "Pentru cazul")
    monkeypatch.setattr(cap06, "LIMITA_APEL_2_S", 0.2)
    inceput = time.perf_counter()
    _respins(cap06.exercitiul_2(_bucla_cu_except_gol), "n-a terminat", "200 ms")
    assert time.perf_counter() - inceput < 3


SEMINTE_EX2 = range(200)


@pytest.fixture(scope="module")
def cazuri_pe_seminte():
    """Seturile de cazuri ale exercițiului 2 pe 200 de semințe (generarea e Python pur, fără torch)."""
    from curs_compilare.exercitii.baza import generator_aleator

    return {seminta: cap06._cazuri_2(generator_aleator(seminta)) for seminta in SEMINTE_EX2}


def test_ex2_cazurile_acopera_toate_felurile_si_deosebesc_greselile(cazuri_pe_seminte):
    for seminta, cazuri in cazuri_pe_seminte.items():
        assert {c["fel"] for c in cazuri} == set(cap06._FELURI_2) | {"enunt"} | {
            f"rentabilitate_{i}_{parte}" for i in (1, 2, 3) for parte in ("sub", "peste")}, seminta
        assert all(cap06._departare_2(c) >= 0.01 for c in cazuri), seminta
        corecte = [cap06._alege_corect(c) for c in cazuri]
        assert None in corecte and "eager" in corecte, seminta
        raspunsuri = {tuple(f(c) for c in cazuri) for _, f, _ in cap06._GRESELI_2}
        assert len(raspunsuri) == len(cap06._GRESELI_2) and tuple(corecte) not in raspunsuri, seminta


def test_ex2_cazurile_care_decid_sunt_mereu_in_set(cazuri_pe_seminte):
    """Pe fiecare sămânță: fiecare mod lipsește dintr-un caz; trei cazuri au același număr de cereri și
    câștigători de rangul lor (primul apel cel mai ieftin, cel mai rapid pe apel, niciunul dintre ele);
    trei perechi au aceleași moduri, cu cereri de o parte și de alta a unui prag de rentabilitate."""
    for seminta, cazuri in cazuri_pe_seminte.items():
        pe_fel = {c["fel"]: c for c in cazuri}
        for mod in cap06.NUME_MODURI:
            assert any(mod not in c["masuratori"] for c in cazuri), (seminta, mod)
        assert "eager" not in pe_fel["fara_eager"]["masuratori"]
        trei = [pe_fel[f] for f in cap06._FELURI_ACELASI_N]
        assert len({c["cereri"] for c in trei}) == 1, seminta
        (prima_1, apel_1), (prima_2, apel_2), (prima_3, apel_3) = (cap06._extreme_2(c) for c in trei)
        assert cap06._alege_corect(trei[0]) == prima_1 != apel_1, seminta
        assert cap06._alege_corect(trei[1]) == apel_2 != prima_2, seminta
        assert cap06._alege_corect(trei[2]) not in (prima_3, apel_3, None), seminta
        for i, (minim, maxim) in enumerate(cap06._PRAGURI_RENTABILITATE_2, 1):
            sub, peste = pe_fel[f"rentabilitate_{i}_sub"], pe_fel[f"rentabilitate_{i}_peste"]
            assert sub["masuratori"] == peste["masuratori"] and sub["cereri"] < peste["cereri"], seminta
            a, b = cap06._alege_corect(sub), cap06._alege_corect(peste)
            assert None not in (a, b) and a != b, seminta
            prag = cap06._prag_rentabilitate(sub["masuratori"][a], sub["masuratori"][b])
            assert sub["cereri"] < prag < peste["cereri"], seminta


def _valide(m, latenta, memorie):
    return {n: v for n, v in m.items() if v["pe_apel_ms"] <= latenta and v["memorie_mib"] <= memorie}


def _cost(v, n):
    return cost_total(v["prima_s"], v["pe_apel_ms"] / 1000, n)


def _reper_eager(masuratori, cereri, latenta_max_ms, memorie_max_mib):
    """Presupune că eager e mereu printre măsurători: pornește de la el și caută un mod compilat care
    își amortizează compilarea. Corect ori de câte ori eager e acolo."""
    eager = masuratori["eager"]
    valide = _valide(masuratori, latenta_max_ms, memorie_max_mib)
    cel_mai_bun, cost_minim = ("eager", _cost(eager, cereri)) if "eager" in valide else (None, math.inf)
    for nume, m in valide.items():
        if nume != "eager" and _cost(m, cereri) < cost_minim:
            cel_mai_bun, cost_minim = nume, _cost(m, cereri)
    return cel_mai_bun


def _lista_fixa(masuratori, cereri, latenta_max_ms, memorie_max_mib):
    """Parcurge toate cele cinci moduri ale cursului, nu cheile primite."""
    toate = {nume: masuratori[nume] for nume in cap06.NUME_MODURI}
    valide = _valide(toate, latenta_max_ms, memorie_max_mib)
    return min(valide, key=lambda n: _cost(valide[n], cereri)) if valide else None


def _dupa_cereri(prag):
    """Alege după numărul cererilor, nu după costuri: sub prag, primul apel cel mai ieftin; peste, cel
    mai rapid pe apel."""
    def alege_modul(masuratori, cereri, latenta_max_ms, memorie_max_mib):
        valide = _valide(masuratori, latenta_max_ms, memorie_max_mib)
        if not valide:
            return None
        cheie = "prima_s" if cereri < prag else "pe_apel_ms"
        return min(valide, key=lambda n: valide[n][cheie])

    return alege_modul


def _eager_sub_prag(prag):
    """Sub prag, eager (dacă e valid); peste, cel mai rapid pe apel."""
    def alege_modul(masuratori, cereri, latenta_max_ms, memorie_max_mib):
        valide = _valide(masuratori, latenta_max_ms, memorie_max_mib)
        if not valide:
            return None
        if cereri < prag and "eager" in valide:
            return "eager"
        return min(valide, key=lambda n: valide[n]["pe_apel_ms"])

    return alege_modul


def _trei_regimuri(prag_1, prag_2, n_fix):
    """Trei regimuri după numărul cererilor; la mijloc, costul total la un număr fix de cereri."""
    def alege_modul(masuratori, cereri, latenta_max_ms, memorie_max_mib):
        valide = _valide(masuratori, latenta_max_ms, memorie_max_mib)
        if not valide:
            return None
        if cereri < prag_1:
            return min(valide, key=lambda n: valide[n]["prima_s"])
        if cereri < prag_2:
            return min(valide, key=lambda n: _cost(valide[n], n_fix))
        return min(valide, key=lambda n: valide[n]["pe_apel_ms"])

    return alege_modul


def _cereri_fixe(n_fix):
    """Costul total corect, dar la un număr de cereri scris pe de rost (de exemplu cel din enunț)."""
    def alege_modul(masuratori, cereri, latenta_max_ms, memorie_max_mib):
        valide = _valide(masuratori, latenta_max_ms, memorie_max_mib)
        return min(valide, key=lambda n: _cost(valide[n], n_fix)) if valide else None

    return alege_modul


_GRESITE_EX2 = {
    "reper_eager": _reper_eager,
    "lista_fixa": _lista_fixa,
    **{f"dupa_cereri_{prag}": _dupa_cereri(prag) for prag in (10, 100, 1000, 10_000, 100_000, 1_000_000)},
    **{f"eager_sub_{prag}": _eager_sub_prag(prag) for prag in (10, 100, 1000, 10_000, 100_000, 1_000_000)},
    **{f"trei_regimuri_{a}_{b}_{n}": _trei_regimuri(a, b, n)
       for a in (10, 100, 1000) for b in (10_000, 100_000) for n in (100, 1000, 10_000) if a < n < b},
    **{f"cereri_fixe_{n}": _cereri_fixe(n) for n in (1, 100, 1000, 10_000, 200_000, 1_000_000)},
}


def _respins_de_cazuri(raspuns, cazuri) -> bool:
    """Verdictul verificării pe un set de cazuri, fără s-o ruleze: respins dacă răspunsul greșește
    sau ridică o excepție măcar într-un caz."""
    for caz in cazuri:
        try:
            obtinut = raspuns(copy.deepcopy(caz["masuratori"]), caz["cereri"], caz["latenta_max_ms"],
                              caz["memorie_max_mib"])
        except Exception:
            return True
        if obtinut != cap06._alege_corect(caz):
            return True
    return False


@pytest.mark.parametrize("nume", sorted(_GRESITE_EX2))
def test_ex2_greselile_sunt_respinse_pe_fiecare_samanta(cazuri_pe_seminte, nume):
    """Un răspuns greșit e respins pe fiecare dintre cele 200 de semințe, nu doar pe unele: cazurile
    care îl separă de răspunsul corect sunt mereu în set."""
    acceptat = [s for s, cazuri in cazuri_pe_seminte.items() if not _respins_de_cazuri(_GRESITE_EX2[nume], cazuri)]
    assert not acceptat, f"{nume} trece pe semințele {acceptat[:10]} (din {len(SEMINTE_EX2)})"


@pytest.mark.parametrize("raspuns", [_alege(), _alege_de_mana], ids=["referinta", "de_mana"])
def test_ex2_raspunsurile_corecte_trec_pe_fiecare_samanta(cazuri_pe_seminte, raspuns):
    acceptat = [s for s, cazuri in cazuri_pe_seminte.items() if not _respins_de_cazuri(raspuns, cazuri)]
    assert acceptat == list(SEMINTE_EX2)


def test_ex2_cele_doua_greseli_din_raport_respinse_prin_verificare_pe_200_de_seminte(monkeypatch):
    """Prin verificarea întreagă: eager presupus mereu prezent și alegerea după numărul cererilor (cu
    pragul la 1 000 de cereri) sunt respinse pe fiecare sămânță, cu explicația potrivită."""
    for seminta in SEMINTE_EX2:
        monkeypatch.setenv("CURS_SEMINTA", str(seminta))
        rezultat = _respins(cap06.exercitiul_2(_reper_eager), "'eager'", "nu e printre măsurătorile", "KeyError")
        assert "masuratori.items()" in rezultat.mesaj
        _respins(cap06.exercitiul_2(_dupa_cereri(1000)), "ai ales", "trebuia")


def test_ex2_indiciile_pentru_alegerea_dupa_cereri(monkeypatch):
    """Alegerea după numărul cererilor primește indiciul cazurilor cu aceleași cereri; un prag cu
    trei regimuri, pe cel al perechilor de o parte și de alta a unui prag de rentabilitate."""
    gasit_pereche = False
    for seminta in range(20):
        monkeypatch.setenv("CURS_SEMINTA", str(seminta))
        mesaj = _respins(cap06.exercitiul_2(_dupa_cereri(1000))).mesaj
        assert "aceleași cereri, alte costuri" in mesaj and "unul dintre cele două extreme" in mesaj, mesaj
        mesaj = _respins(cap06.exercitiul_2(_trei_regimuri(100, 10_000, 1000))).mesaj
        gasit_pereche |= "de o parte și de alta a pragului" in mesaj and "în ambele" in mesaj
    assert gasit_pereche


def test_ex2_explicatia_spune_pragul_de_rentabilitate():
    caz = {"fel": "eager_castiga", "cereri": 100, "latenta_max_ms": 50.0, "memorie_max_mib": 5000.0, "masuratori": {
        "eager": {"prima_s": 0.05, "pe_apel_ms": 20.0, "memorie_mib": 900.0},
        "default": {"prima_s": 20.05, "pe_apel_ms": 10.0, "memorie_mib": 800.0}}}
    text = cap06._explica_caz_2(caz, "default", "eager")
    assert "se egalează la vreo 2 001 cereri" in text, text


# =============================================================================================
# Exercițiul 3
# =============================================================================================


def _regional(model):
    for strat in model.straturi:
        strat.compile()
    return model


def _regional_forward(model):
    """Alternativă corectă: `forward` fiecărui strat, înlocuit cu versiunea compilată (pe loc)."""
    for strat in model.straturi:
        strat.forward = torch.compile(strat.forward)
    return model


def test_ex3_accepta_referinta():
    rezultat = cap06.exercitiul_3(_regional)
    assert rezultat, rezultat.text()
    assert "un graf" in rezultat.mesaj and "fără recompilări" in rezultat.mesaj


def test_ex3_accepta_alternativa_cu_forward_compilat():
    rezultat = cap06.exercitiul_3(_regional_forward)
    assert rezultat, rezultat.text()


@pytest.mark.parametrize(
    "raspuns, fragmente",
    [
        (lambda m: torch.compile(m), ["torch.compile(model)", "_orig_mod."]),
        (lambda m: (m.compile(), m)[1], ["modelul întreg", "model.compile()"]),
        (lambda m: copy.deepcopy(_regional(m)), ["alt obiect", "ReteaTransformer"]),
        (lambda m: None, ["None", "return model"]),
        (lambda m: [m], ["alt obiect", "list"]),
    ],
    ids=["torch_compile_model", "model_compile", "alt_model", "None", "lista"],
)
def test_ex3_respinge_modelul_intreg_si_alt_obiect(raspuns, fragmente):
    inceput = time.perf_counter()
    _respins(cap06.exercitiul_3(raspuns), *fragmente)
    assert time.perf_counter() - inceput < 5  # fără compilare


def test_ex3_respinge_straturile_invelite_si_copiile():
    def invelite(model):
        for i, strat in enumerate(model.straturi):
            model.straturi[i] = torch.compile(strat)
        return model

    _respins(cap06.exercitiul_3(invelite), "_orig_mod.", "strat.compile()")

    def copii(model):
        model.straturi = torch.nn.ModuleList(copy.deepcopy(s) for s in model.straturi)
        return _regional(model)

    _respins(cap06.exercitiul_3(copii), "nu mai sunt aceiași tensori", "optimizator")

    def noi(model):
        c = model.configuratie
        for i in range(len(model.straturi)):
            model.straturi[i] = BlocTransformer(c.dim_model, c.nr_capete)
        return _regional(model)

    _respins(cap06.exercitiul_3(noi), "nu mai sunt aceiași tensori")


def test_ex3_doar_primul_strat_compilat():
    def primul(model):
        model.straturi[0].compile()
        return model

    _respins(cap06.exercitiul_3(primul), "doar stratul 0", "celelalte straturi rulează eager")


def test_ex3_ocolirea_nimic_compilat_sau_dezactivat():
    _respins(cap06.exercitiul_3(lambda m: m), "Niciun strat n-a rulat printr-o regiune compilată")

    def dezactivat(model):
        for strat in model.straturi:
            strat.compile()
            strat.forward = torch.compiler.disable(strat.forward)
        return model

    _respins(cap06.exercitiul_3(dezactivat), "Niciun strat", "torch.compiler.disable")


def test_ex3_backend_fara_inductor_e_respins():
    def cu_backend_eager(model):
        for strat in model.straturi:
            strat.compile(backend="eager")
        return model

    _respins(cap06.exercitiul_3(cu_backend_eager), "Inductor", "backend")


def test_ex3_cate_un_graf_pe_strat_e_respins():
    """Straturile compilate cu opțiuni diferite (aici, backend-ul): Dynamo nu poate refolosi graful
    altui strat, deci compilează câte unul."""
    def optiuni_diferite(model):
        for i, strat in enumerate(model.straturi):
            strat.compile(backend="inductor" if i % 2 == 0 else "aot_eager")
        return model

    _respins(cap06.exercitiul_3(optiuni_diferite), "în loc de unul singur", "aceleași opțiuni")


def test_ex3_forward_compilat_in_clasa_e_respins_si_clasa_pusa_la_loc():
    original = BlocTransformer.forward

    def in_clasa(model):
        BlocTransformer.forward = torch.compile(BlocTransformer.forward)
        return model

    try:
        _respins(cap06.exercitiul_3(in_clasa), "a schimbat clasa", "BlocTransformer.forward", "am pus clasa la loc")
        assert BlocTransformer.forward is original
        # schimbată înainte de verificare, de o celulă rulată mai devreme
        BlocTransformer.forward = torch.compile(original)
        _respins(cap06.exercitiul_3(_regional), "înaintea verificării", "BlocTransformer.forward")
        assert BlocTransformer.forward is original
    finally:
        BlocTransformer.forward = original


def test_ex3_clasa_straturilor_schimbata_e_respinsa():
    class BlocCompilat(BlocTransformer):
        pass

    def alta_clasa(model):
        for strat in model.straturi:
            strat.__class__ = BlocCompilat
            strat.compile()
        return model

    _respins(cap06.exercitiul_3(alta_clasa), "nu mai sunt de clasa `BlocTransformer`", "BlocCompilat")


def test_ex3_unealta_cursului_e_respinsa():
    from curs_compilare.capitole import cap06_modelul_intreg as antrenare

    inceput = time.perf_counter()
    _respins(cap06.exercitiul_3(lambda m: antrenare._compileaza_straturile(m)), "_compileaza_straturile")
    assert time.perf_counter() - inceput < 5


def test_ex3_nescris_exceptie_si_bucla(monkeypatch):
    rezultat = cap06.exercitiul_3(_stub)
    assert not rezultat and rezultat.mesaj == NESCRIS
    _respins(cap06.exercitiul_3(lambda m: m.straturi[10]), "IndexError", "linia")
    monkeypatch.setattr(cap06, "LIMITA_APEL_3_S", 0.3)
    inceput = time.perf_counter()
    _respins(cap06.exercitiul_3(_bucla_cu_except_gol), "n-a terminat", "300 ms")
    assert time.perf_counter() - inceput < 3


def test_ex1_limita_de_recompilari_atinsa_e_spusa():
    """Cu limita de recompilări coborâtă la 1, a doua rată nouă face ca Dynamo să renunțe și să
    ruleze pasul eager: verificarea citește avertismentul lui Dynamo și o spune."""
    from curs_compilare.inspectie import limita_recompilari, nume_limita_recompilari

    veche = getattr(torch._dynamo.config, nume_limita_recompilari())

    def rata_float_in_pas(model, pasi_totali):
        opt = torch.optim.AdamW(model.parameters(), lr=torch.tensor(RATA_MAXIMA))
        stare = {"t": 0}

        @torch.compile
        def pas_optimizare():
            opt.param_groups[0]["lr"] = rata_la_pasul(stare["t"], pasi_totali)
            opt.step()
            stare["t"] += 1

        return opt, pas_optimizare

    # (nu monkeypatch.setattr: pe configurația lui Dynamo, refacerea ei șterge opțiunea)
    with limita_recompilari(1):
        _respins(cap06.exercitiul_1(rata_float_in_pas), "limita de recompilări", "eager", "a devenit un float")
    assert getattr(torch._dynamo.config, nume_limita_recompilari()) == veche


def test_ex1_fullgraph_cu_planificator_si_zero_grad_sunt_explicate():
    def cu_fullgraph(model, pasi_totali):
        opt = torch.optim.AdamW(model.parameters(), lr=torch.tensor(RATA_MAXIMA))
        planificator = LambdaLR(opt, lambda t: rata_la_pasul(t, pasi_totali) / RATA_MAXIMA)

        @torch.compile(fullgraph=True)
        def pas_optimizare():
            opt.step()
            planificator.step()

        return opt, pas_optimizare

    _respins(cap06.exercitiul_1(cu_fullgraph), "fullgraph=True", "pasul 0", absente=("Traceback",))

    def cu_zero_grad(model, pasi_totali):
        opt = torch.optim.AdamW(model.parameters(), lr=torch.tensor(RATA_MAXIMA))
        planificator = LambdaLR(opt, lambda t: rata_la_pasul(t, pasi_totali) / RATA_MAXIMA)

        @torch.compile
        def pas_optimizare():
            opt.zero_grad()
            opt.step()
            planificator.step()

        return opt, pas_optimizare

    _respins(cap06.exercitiul_1(cu_zero_grad), "nu s-au schimbat deloc", "zero_grad()")
