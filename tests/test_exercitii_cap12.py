"""Verificările capitolului 12 (memoria sub compilare), atacate: pentru fiecare exercițiu, ciotul, None, tipul
greșit, semnătura greșită, greșelile de fiecare fel, pe mai multe semințe, și soluții corecte, câte două formulări.

Exercițiul 1 (politica SAC doar pe produsele de matrice): politica care păstrează tot (nicio schimbare de
memorie) sau nimic, comparația cu pachetul (`aten.mm` în loc de `aten.mm.default`), doar `mm` (fără `addmm`),
politica din secțiunea 4 (și atenția), o politică ce citește forma (corectă doar pe o lățime), un rezultat care nu
e `CheckpointPolicy`, checkpointing-ul în afara regiunii compilate (`torch.compiler.disable`), blocul fără
`checkpoint`, `checkpoint` fără politică (checkpointing complet), `context_fn` ca `lambda`, o recompilare la fiecare
pas, o ieșire greșită, referința verificării (nu există ca atribut).
Exercițiul 2 (bugetul): mereu 1,0, mereu 0,0, mereu 0,5 (o valoare scrisă de mână), None când ceva încape, un buget
care nu e în listă, octeții salvați în loc de memoria totală, bugetul cu memoria cea mai mică, primul care încape de
jos în sus, funcția cursului (`mem12.alege_bugetul`), o schimbare a configurației globale, o buclă fără sfârșit.
Exercițiul 3 (predicția): mulțimea goală, produsele de matrice, reducerile, normalizarea uitată, sigmoid la sigmoid,
GELU fără tanh, un singur caz scris de mână, un șir în loc de mulțime, None, numele lungi aten (acceptate), funcțiile
cursului care dau răspunsul.

Verificările compilează doar pentru răspunsurile care trec de verificările ieftine (politica chemată direct,
blocul rulat fără compilare); cifrele lor se păstrează pe proces, deci tabelul exercițiului 2 și adevărul
exercițiului 3 se măsoară o singură dată."""

import functools
import time

import pytest
import torch
from torch.utils.checkpoint import CheckpointPolicy, checkpoint, create_selective_checkpoint_contexts

from curs_compilare.capitole import cap12_memorie as mem12
from curs_compilare.exercitii import cap12
from curs_compilare.exercitii.baza import NESCRIS
from verificari_comune import acceptat as _acceptat
from verificari_comune import controleaza_formatul
from verificari_comune import respins as _respins

aten = torch.ops.aten
MATMUL = (aten.mm.default, aten.addmm.default, aten.bmm.default)
SEMINTE = ("1", "2", "3")


@pytest.fixture(autouse=True)
def mesaje_in_formatul_cursului(monkeypatch):
    """Fiecare mesaj trece prin regulile de format ale cursului și n-are traceback."""
    controleaza_formatul(monkeypatch, cap12)


def _nescris(*argumente, **argumente_numite):
    # Scrie aici codul tău.
    raise NotImplementedError


# ---------------------------------------------------------------------------------------------
# Exercițiul 1
# ---------------------------------------------------------------------------------------------


def politica_matmul(ctx, op, *args, **kwargs):  # soluția de referință
    if op in MATMUL:
        return CheckpointPolicy.MUST_SAVE
    return CheckpointPolicy.PREFER_RECOMPUTE


CONTEXT = functools.partial(create_selective_checkpoint_contexts, politica_matmul)


def bloc_cu_sac(bloc, x):
    return checkpoint(bloc, x, use_reentrant=False, context_fn=CONTEXT)


def pe_pachete(ctx, op, *args, **kwargs):  # alternativă: pachetul operației, rezultat bool (forma veche)
    return op.overloadpacket in (aten.mm, aten.addmm, aten.bmm)


def _bloc_cu(politica):
    context = functools.partial(create_selective_checkpoint_contexts, politica)

    def bloc(b, x):
        return checkpoint(b, x, use_reentrant=False, context_fn=context)

    return bloc


BLOC_PE_PACHETE = _bloc_cu(pe_pachete)


def _politica(conditie):
    def politica(ctx, op, *args, **kwargs):
        return CheckpointPolicy.MUST_SAVE if conditie(op) else CheckpointPolicy.PREFER_RECOMPUTE

    return politica


def test_1_solutia_si_alternativa():
    inceput = time.perf_counter()
    rezultat = cap12.exercitiul_1(politica_matmul, bloc_cu_sac)
    _acceptat(rezultat)
    assert "doar produsele de matrice" in rezultat.mesaj and "intrările blocurilor" in rezultat.mesaj
    assert time.perf_counter() - inceput < 120
    _acceptat(cap12.exercitiul_1(pe_pachete, BLOC_PE_PACHETE))


def test_1_ciot_none_tip_si_semnatura():
    assert cap12.exercitiul_1(_nescris, bloc_cu_sac).mesaj == NESCRIS
    assert cap12.exercitiul_1(politica_matmul, _nescris).mesaj == NESCRIS
    _respins(cap12.exercitiul_1(None, bloc_cu_sac), "None", "politica_matmul")
    _respins(cap12.exercitiul_1(politica_matmul, 3), "int", "fără paranteze")
    _respins(cap12.exercitiul_1(lambda ctx: None, bloc_cu_sac), "semnătura", "2 argumente")
    _respins(cap12.exercitiul_1(lambda ctx, op: "salvează", bloc_cu_sac), "CheckpointPolicy", "str")
    _respins(cap12.exercitiul_1(politica_matmul, lambda b, x: None), "nu un tensor", "return")


def test_1_politici_gresite():
    _respins(cap12.exercitiul_1(lambda ctx, op, *a, **k: CheckpointPolicy.MUST_SAVE, bloc_cu_sac),
             "păstrează tot", "memoria rămâne aceeași")
    _respins(cap12.exercitiul_1(lambda ctx, op, *a, **k: CheckpointPolicy.PREFER_RECOMPUTE, bloc_cu_sac),
             "nu păstrează nimic", "checkpointing-ul complet")
    _respins(cap12.exercitiul_1(_politica(lambda op: op in (aten.mm, aten.addmm, aten.bmm)), bloc_cu_sac),
             "pachetul", "`OpOverload`")
    _respins(cap12.exercitiul_1(_politica(lambda op: op == aten.mm.default), bloc_cu_sac),
             "`aten.addmm`", "`nn.Linear` cu bias")
    _respins(cap12.exercitiul_1(_politica(lambda op: op in mem12.OPERATII_CALCUL_INTENS), bloc_cu_sac),
             "atenției", "secțiunea 4")
    _respins(cap12.exercitiul_1(_politica(lambda op: op in MATMUL or op == aten.tanh.default), bloc_cu_sac),
             "și alte operații", "`aten.tanh`")


def test_1_referinta_nu_e_expusa():
    assert not [n for n in vars(cap12) if "referinta" in n.lower()]
    _respins(cap12.exercitiul_1(lambda ctx, op, *a, **k: cap12._politica_referinta(ctx, op), bloc_cu_sac),
             "AttributeError", "_politica_referinta")


def test_1_checkpoint_in_afara_regiunii_compilate():
    @torch.compiler.disable
    def scos_din_compilare(bloc, x):
        return checkpoint(bloc, x, use_reentrant=False, context_fn=CONTEXT)

    _respins(cap12.exercitiul_1(politica_matmul, scos_din_compilare), "în afara regiunii compilate", "torch.compiler.disable")

    def cu_bloc_scos(bloc, x):
        return checkpoint(torch.compiler.disable(bloc), x, use_reentrant=False, context_fn=CONTEXT)

    _respins(cap12.exercitiul_1(politica_matmul, cu_bloc_scos), "în afara regiunii compilate")


def test_1_aplicarea_gresita():
    _respins(cap12.exercitiul_1(politica_matmul, lambda bloc, x: bloc(x)), "nu pune blocul într-un `checkpoint`")
    _respins(cap12.exercitiul_1(politica_matmul, lambda bloc, x: checkpoint(bloc, x, use_reentrant=False)),
             "fără politica ta", "context_fn=functools.partial")

    def cu_lambda(bloc, x):
        return checkpoint(bloc, x, use_reentrant=False,
                          context_fn=lambda: create_selective_checkpoint_contexts(politica_matmul))

    _respins(cap12.exercitiul_1(politica_matmul, cu_lambda), "`context_fn`", "`lambda`", "functools.partial")
    _respins(cap12.exercitiul_1(politica_matmul, lambda bloc, x: checkpoint(bloc, x * 2, use_reentrant=False,
                                                                            context_fn=CONTEXT)),
             "nu întoarce ieșirea blocului")


def test_1_recompilare_la_fiecare_pas():
    pasi = {"n": 0}

    def cu_contor(bloc, x):
        pasi["n"] += 1
        factor = float(pasi["n"] % 2 + 1)      # o constantă Python care se schimbă de la un pas la altul
        return checkpoint(bloc, x, use_reentrant=False, context_fn=CONTEXT) * (factor / factor)

    _respins(cap12.exercitiul_1(politica_matmul, cu_contor), "s-a recompilat", "al doilea pas")


def test_1_a_doua_latime_difera_mereu_de_prima():
    """Lățimea 16 e în fiecare rulare, iar a doua, aleasă de sămânță, e alta: o politică potrivită doar pe o
    lățime cade pe orice sămânță (de aceea testul de mai jos rulează pe una singură)."""
    import random

    for seminta in range(200):
        rng = random.Random(seminta)
        latimi = [cap12.LATIMI_1[0], rng.choice(cap12.LATIMI_1[1:])]
        assert latimi[0] == 16 and latimi[1] in (24, 32)


@pytest.mark.parametrize("seminta", SEMINTE[:1])
def test_1_corecta_doar_pe_o_latime(seminta, monkeypatch):
    """Politica păstrează produsele de matrice doar când ponderea are cel mult 16 rânduri: trece pe lățimea 16,
    cade pe a doua lățime."""
    monkeypatch.setenv("CURS_SEMINTA", seminta)

    def doar_16(ctx, op, *args, **kwargs):
        # ultimul argument al lui addmm e ponderea transpusă (lățimea intrării × lățimea ieșirii)
        mica = not args or (isinstance(args[-1], torch.Tensor) and args[-1].shape[0] <= 16)
        return CheckpointPolicy.MUST_SAVE if op in MATMUL and mica else CheckpointPolicy.PREFER_RECOMPUTE

    _respins(cap12.exercitiul_1(doar_16, _bloc_cu(doar_16)), "lățime 16", "depinde de forme", "doar pe unele mărimi")


def test_1_bucla_fara_sfarsit(monkeypatch):
    def fara_sfarsit(ctx, op, *args, **kwargs):
        while True:
            try:
                time.sleep(0.01)
            except:  # noqa: E722
                pass

    monkeypatch.setattr(cap12, "LIMITA_APEL_S", 0.5)
    inceput = time.perf_counter()
    _respins(cap12.exercitiul_1(fara_sfarsit, bloc_cu_sac), "n-a terminat")
    assert time.perf_counter() - inceput < 15


# ---------------------------------------------------------------------------------------------
# Exercițiul 2
# ---------------------------------------------------------------------------------------------


def alege_bugetul(masoara, plafon, bugete):  # soluția de referință
    masuri = {b: masoara(b) for b in bugete}
    incap = [b for b, m in masuri.items() if m.octeti_total <= plafon]
    return min(incap, key=lambda b: masuri[b].flops_recalculate) if incap else None


def primul_de_sus(masoara, plafon, bugete):  # alternativă: de la bugetul mare la cel mic, cu legătura la egalitate
    bune = [b for b in sorted(bugete, reverse=True) if masoara(b).octeti_total <= plafon]
    if not bune:
        return None
    minim = min(masoara(b).flops_recalculate for b in bune)
    return next(b for b in bune if masoara(b).flops_recalculate == minim)


def test_2_tabelul_are_toate_cazurile():
    """Tabelul modelului exercițiului are cele patru plafoane (unul la mijloc, unde 1,0 nu încape și răspunsul nu e
    bugetul cu memoria cea mai mică), iar bugetul 0,0 are mai multă memorie decât alte bugete (memoria nu scade cu
    bugetul): fără asta, greșelile de mai jos n-ar fi prinse."""
    import random

    with cap12._mediu_verificare():
        tabel = cap12._tabel_2()
    for seminta in range(20):
        cazuri = dict(cap12._cazuri_2(tabel, random.Random(seminta)))
        assert set(cazuri) == {"toate încap", "încape doar bugetul cu memoria cea mai mică", "la mijloc", "nu încape niciunul"}
        assert 1.0 not in cap12._raspunsuri(tabel, cazuri["la mijloc"]) and cap12._raspunsuri(tabel, cazuri["la mijloc"])
        assert cap12._raspunsuri(tabel, cazuri["nu încape niciunul"]) == set()
    assert tabel[0.0].octeti_total > min(m.octeti_total for m in tabel.values())
    assert tabel[1.0].flops_recalculate == 0 < tabel[0.0].flops_recalculate


def test_2_solutia_si_alternativa():
    _acceptat(cap12.exercitiul_2(alege_bugetul))
    _acceptat(cap12.exercitiul_2(primul_de_sus))


def test_2_ciot_none_tip_si_semnatura():
    assert cap12.exercitiul_2(_nescris).mesaj == NESCRIS
    _respins(cap12.exercitiul_2(None), "None")
    _respins(cap12.exercitiul_2(lambda masoara, plafon: 1.0), "semnătura", "3 argumente")
    _respins(cap12.exercitiul_2(lambda m, p, b: "1,0"), "str")


@pytest.mark.parametrize("seminta", SEMINTE)
def test_2_raspunsuri_gresite_pe_fiecare_samanta(seminta, monkeypatch):
    monkeypatch.setenv("CURS_SEMINTA", seminta)
    _respins(cap12.exercitiul_2(lambda m, p, b: 1.0), "nu încape")
    _respins(cap12.exercitiul_2(lambda m, p, b: 0.0), "reface", "alege-l pe cel care reface cel mai puțin")
    _respins(cap12.exercitiul_2(lambda m, p, b: 0.5))
    _respins(cap12.exercitiul_2(lambda m, p, b: None), "Ai întors None", "încap bugete")
    _respins(cap12.exercitiul_2(lambda m, p, b: 0.45), "nu e în lista `bugete`")
    _respins(cap12.exercitiul_2(lambda m, p, b: next((x for x in b if m(x).octeti_salvati <= p), None)),
             "nu încape", "doar octeții salvați", "`octeti_total`")
    _respins(cap12.exercitiul_2(lambda m, p, b: min((x for x in b if m(x).octeti_total <= p),
                                                    key=lambda x: m(x).octeti_total, default=None)),
             "memoria cea mai mică", "nu e cel mai rapid")
    _respins(cap12.exercitiul_2(lambda m, p, b: next((x for x in sorted(b) if m(x).octeti_total <= p), None)),
             "reface")


def test_2_functia_cursului_si_configuratia(monkeypatch):
    _respins(cap12.exercitiul_2(lambda m, p, b: mem12.alege_bugetul([], p, 0)), "`mem12.alege_bugetul`", "scrii tu")

    inainte = torch._functorch.config.activation_memory_budget

    def schimba(masoara, plafon, bugete):
        torch._functorch.config.activation_memory_budget = 0.5
        return alege_bugetul(masoara, plafon, bugete)

    _respins(cap12.exercitiul_2(schimba), "configurația globală", "activation_memory_budget")
    assert torch._functorch.config.activation_memory_budget == inainte


def test_2_bucla_fara_sfarsit(monkeypatch):
    def fara_sfarsit(masoara, plafon, bugete):
        while True:
            pass

    monkeypatch.setattr(cap12, "LIMITA_APEL_S", 0.5)
    inceput = time.perf_counter()
    _respins(cap12.exercitiul_2(fara_sfarsit), "n-a terminat")
    assert time.perf_counter() - inceput < 15


# ---------------------------------------------------------------------------------------------
# Exercițiul 3
# ---------------------------------------------------------------------------------------------


def prezice_recalcularile(activare, cu_norma):  # soluția de referință
    din_activare = {"gelu_tanh": {"mul", "add", "tanh"}, "gelu": {"mul", "add", "erf"}}.get(activare, set())
    return din_activare | ({"sub", "mul"} if cu_norma else set())


def cu_nume_lungi(activare, cu_norma):  # alternativă: nume aten întregi, o listă, cu vederi (ignorate)
    nume = [f"aten.{n}.default" for n in prezice_recalcularile(activare, cu_norma)]
    return nume + ["aten.view.default"]


def test_3_solutia_si_alternativa():
    _acceptat(cap12.exercitiul_3(prezice_recalcularile))
    _acceptat(cap12.exercitiul_3(cu_nume_lungi))


def test_3_adevarul_nu_depinde_de_latime():
    """Pe fiecare lățime a verificării, adevărul e același (aici, pe două combinații; toate 12 le încearcă
    soluția, pe lățimea aleasă)."""
    with cap12._mediu_verificare():
        for activare, cu_norma in (("gelu_tanh", True), ("relu", False)):
            adevaruri = {cap12._adevarul_3(activare, cu_norma, latime) for latime in cap12.LATIMI_3}
            assert adevaruri == {frozenset(prezice_recalcularile(activare, cu_norma))}, (activare, cu_norma)


def test_3_ciot_none_tip_si_semnatura():
    assert cap12.exercitiul_3(_nescris).mesaj == NESCRIS
    _respins(cap12.exercitiul_3(lambda a, n: None), "None", "return")
    _respins(cap12.exercitiul_3(lambda a, n: "tanh"), "șir de caractere")
    _respins(cap12.exercitiul_3(lambda a, n: 3), "mulțime", "int")
    _respins(cap12.exercitiul_3(lambda activare: set()), "semnătura", "2 argumente")


@pytest.mark.parametrize("seminta", SEMINTE[:1])
def test_3_predictii_gresite_pe_fiecare_samanta(seminta, monkeypatch):
    monkeypatch.setenv("CURS_SEMINTA", seminta)
    p = prezice_recalcularile
    _respins(cap12.exercitiul_3(lambda a, n: set()), "normalizarea")
    _respins(cap12.exercitiul_3(lambda a, n: p(a, n) | {"addmm"}), "produs de matrice")
    _respins(cap12.exercitiul_3(lambda a, n: p(a, n) | ({"var_mean"} if n else set())), "reducere")
    _respins(cap12.exercitiul_3(lambda a, n: p(a, False)), "normalizarea", "x̂")
    _respins(cap12.exercitiul_3(lambda a, n: p(a, n) | ({"sigmoid"} if a == "sigmoid" else set())), "ieșirea lui")
    _respins(cap12.exercitiul_3(lambda a, n: p(a, n) - {"tanh"}), "GELU", "tanh")
    _respins(cap12.exercitiul_3(lambda a, n: {"tanh", "mul", "add"} if a == "gelu_tanh" else set()),
             "din 10 combinații")
    _respins(cap12.exercitiul_3(lambda a, n: p(a, n) | ({"tanh"} if a == "tanh" else set())), "ieșirea")


def test_3_functiile_cursului_sunt_interzise():
    def cu_compilatorul(activare, cu_norma):
        bloc = mem12.BlocMLP(16, activare, cu_norma)
        functie, compilator = mem12.compileaza(bloc, genereaza_cod=False)
        x = torch.randn(2, 4, 16)
        mem12.un_pas(functie, x, x)
        return set(compilator.partitie.recalculate())

    _respins(cap12.exercitiul_3(cu_compilatorul), "funcția cursului", "scrii tu")
