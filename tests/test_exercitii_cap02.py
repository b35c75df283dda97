"""Verificările capitolului 02: soluții corecte acceptate (mai multe variante), greșelile tipice
respinse cu explicații, inclusiv ascunderea întreruperilor cu torch.compiler.disable."""

import torch

from curs_compilare.exercitii import cap02

# --- exercițiul 1 ---


def _repara_where(x):
    media = x.mean()
    x = torch.where(media > 0, x - media, x + 1.0)
    return x / x.abs().max()


def _repara_aritmetic(x):
    media = x.mean()
    pozitiv = (media > 0).to(x.dtype)
    x = pozitiv * (x - media) + (1 - pozitiv) * (x + 1.0)
    return x / torch.amax(torch.abs(x))


def test_ex1_accepta_doua_reparatii():
    assert cap02.exercitiul_1(_repara_where)
    assert cap02.exercitiul_1(_repara_aritmetic)


def test_ex1_respinge_codul_nereparat():
    rezultat = cap02.exercitiul_1(cap02.normalizeaza_cu_intreruperi)
    assert not rezultat and "fullgraph=True" in rezultat.mesaj


def test_ex1_respinge_disable_pe_o_linie_si_pe_toata_functia():
    @torch.compiler.disable
    def maxim_ascuns(x):
        return max(x.abs().flatten().tolist())

    def cu_disable(x):
        media = x.mean()
        x = torch.where(media > 0, x - media, x + 1.0)
        return x / maxim_ascuns(x)

    rezultat = cap02.exercitiul_1(cu_disable)
    assert not rezultat and "torch.compiler.disable" in rezultat.mesaj

    # torch.compile pe o funcție exclusă în întregime o compilează totuși: întreruperile rămân.
    rezultat = cap02.exercitiul_1(torch.compiler.disable(cap02.normalizeaza_cu_intreruperi))
    assert not rezultat and "fullgraph=True" in rezultat.mesaj


def test_ex1_respinge_o_ramura_gresita():
    def doar_scade(x):
        x = x - x.mean()
        return x / x.abs().max()

    rezultat = cap02.exercitiul_1(doar_scade)
    assert not rezultat and "media negativă" in rezultat.mesaj


# --- exercițiul 2 ---

CORECT_2 = {"A": (1, 0), "B": (3, 2), "C": (2, 1), "D": (2, 1)}


def test_ex2_accepta_predictiile_corecte():
    assert cap02.exercitiul_2(CORECT_2)
    assert cap02.exercitiul_2({k: list(v) for k, v in CORECT_2.items()})


def test_ex2_respinge_cu_indiciu():
    rezultat = cap02.exercitiul_2(dict(CORECT_2, D=(3, 2)))
    assert not rezultat and "D:" in rezultat.mesaj and "formă" in rezultat.mesaj
    assert not cap02.exercitiul_2(dict(CORECT_2, A="1"))
    assert not cap02.exercitiul_2({"A": (1, 0)})


# --- exercițiul 3 ---


def test_ex3_accepta_dynamic_si_mark_dynamic():
    assert cap02.exercitiul_3(lambda f, backend: torch.compile(f, backend=backend, dynamic=True))

    def cu_mark_dynamic(f, backend):
        compilata = torch.compile(f, backend=backend)

        def apel(x):
            torch._dynamo.mark_dynamic(x, 0)
            return compilata(x)

        return apel

    assert cap02.exercitiul_3(cu_mark_dynamic)


def test_ex3_respinge_implicit_static_si_fara_backend():
    rezultat = cap02.exercitiul_3(lambda f, backend: torch.compile(f, backend=backend))
    assert not rezultat and "2 compilări" in rezultat.mesaj
    rezultat = cap02.exercitiul_3(lambda f, backend: torch.compile(f, backend=backend, dynamic=False))
    assert not rezultat and "dynamic=False" in rezultat.mesaj
    rezultat = cap02.exercitiul_3(lambda f, backend: torch.compile(f, backend="eager", dynamic=True))
    assert not rezultat and "backend" in rezultat.mesaj


# --- exercițiul 4 ---


def _cu_atitudine(functie, intrari):
    functie(intrari[0])
    try:
        with torch.compiler.set_stance("fail_on_recompile"):
            for x in intrari[1:]:
                functie(x)
    except RuntimeError:
        return True
    return False


def _cu_jurnal(functie, intrari):
    from curs_compilare.inspectie import jurnal_torch

    functie(intrari[0])
    with jurnal_torch(recompiles=True) as jurnal:
        for x in intrari[1:]:
            functie(x)
    return bool(jurnal.linii("Recompiling"))


def test_ex4_accepta_atitudinea_si_jurnalul():
    assert cap02.exercitiul_4(_cu_atitudine)
    assert cap02.exercitiul_4(_cu_jurnal)


def test_ex4_respinge_greselile_tipice():
    rezultat = cap02.exercitiul_4(lambda f, intrari: False)
    assert not rezultat and "recompilează" in rezultat.mesaj

    def fara_primul_apel(functie, intrari):
        try:
            with torch.compiler.set_stance("fail_on_recompile"):
                for x in intrari:
                    functie(x)
        except RuntimeError:
            return True
        return False

    rezultat = cap02.exercitiul_4(fara_primul_apel)
    assert not rezultat and "Primul apel" in rezultat.mesaj

    def nu_prinde(functie, intrari):
        functie(intrari[0])
        with torch.compiler.set_stance("fail_on_recompile"):
            for x in intrari[1:]:
                functie(x)
        return False

    rezultat = cap02.exercitiul_4(nu_prinde)
    assert not rezultat and "Prinde-o" in rezultat.mesaj

    def lasa_atitudinea(functie, intrari):
        functie(intrari[0])
        torch.compiler.set_stance("fail_on_recompile")
        try:
            for x in intrari[1:]:
                functie(x)
        except RuntimeError:
            return True
        return False

    rezultat = cap02.exercitiul_4(lasa_atitudinea)
    assert not rezultat and "with torch.compiler.set_stance" in rezultat.mesaj
    rezultat = cap02.exercitiul_4(lambda f, intrari: "da")
    assert not rezultat and "True sau False" in rezultat.mesaj
