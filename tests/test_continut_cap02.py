"""Capitolul 02: afirmațiile corectate după recenzie nu trebuie să revină, iar faptele pe care
se sprijină textul (întreruperea într-o buclă, garda 2 <= dimensiune a formelor dinamice, limita
de recompilări) sunt verificate aici și pe versiunea de PyTorch instalată."""

import re

import pytest
import torch

from curs_compilare.exercitii import cap02
from curs_compilare.inspectie import NumaratorCompilari, jurnal_torch, limita_recompilari
from text_notebook import RADACINA, markdown
from text_notebook import siruri as _texte_din_cod
from text_notebook import surse as _celule

CAPITOL = RADACINA / "notebooks" / "02_dynamo_garzi_intreruperi_recompilari.ipynb"
SOLUTIE = RADACINA / "solutions" / "02_dynamo_garzi_intreruperi_recompilari_solutii.ipynb"
#: Uneltele capitolului: tabelul, graficele și propozițiile mutate din celule stau aici, așa că
#: verificările textului tipărit și ale formatului se uită, pentru capitol, și în ele.
UNELTE = RADACINA / "curs_compilare" / "capitole" / "cap02_dynamo.py"


def _markdown(cale=CAPITOL):
    return markdown(cale)


# --- textul ---------------------------------------------------------------------------------


def test_intreruperea_in_bucla_sare_doar_cadrul():
    text = _markdown()
    assert "renunță la toată funcția și o rulează în modul eager: niciun graf" not in text
    assert "oprește toată compilarea" not in text
    assert "**cadrul** (*frame*)" in text
    assert "nu e însă recursivă" in text
    cod = "\n".join(_celule(CAPITOL, "code"))
    assert "torch.compile(bucla_cu_intrerupere, backend=\"eager\", fullgraph=True)" in cod
    assert "numarator.rulari" in cod


def test_formele_dinamice_nu_acopera_0_si_1():
    text = _markdown()
    assert "graful nou e valabil pentru orice lungime," not in text
    assert "2 <= L['x'].size()[0]" in text and "0 și 1" in text
    assert "## Exercițiul 3 — Loturi de orice mărime" not in text
    cod = "\n".join(_celule(CAPITOL, "code"))
    assert re.search(r"loturi_dinamice = \[[^\]]*\b1\]", cod), "demonstrația recompilării la lotul 1 lipsește"
    assert "cel puțin 2" in _markdown(SOLUTIE)


def test_limita_de_recompilari_pastreaza_versiunile_compilate():
    text = _markdown()
    assert "de atunci încolo o rulează în modul eager" not in text
    assert "Doar intrările care nu se potrivesc cu niciuna rulează în modul eager" in text
    assert "FailOnRecompileLimitHit" in text
    cod = "\n".join(_celule(CAPITOL, "code"))
    assert "restul apelărilor au rulat în modul eager" not in cod
    assert "dublare_stricta = torch.compile(" in cod and "fullgraph=True" in cod


@pytest.mark.parametrize("cale", [CAPITOL, SOLUTIE], ids=lambda c: c.parent.name)
def test_apel_nu_apelare(cale):
    """Terminologia cursului: „apel / apeluri / primul apel”, în proză și în textul tipărit."""
    surse = _celule(cale, "code") + ([UNELTE.read_text(encoding="utf-8")] if cale == CAPITOL else [])
    texte = [_markdown(cale)] + [t for s in surse for t in _texte_din_cod(s)]
    gasite = [m.group(0) for t in texte for m in re.finditer(r"\w*apel(?:are|ări|area|ării|ările|ărilor)\w*", t)]
    assert not gasite, gasite


def test_mesajele_verificarilor_spun_apel():
    sursa = (RADACINA / "curs_compilare" / "exercitii" / "cap02.py").read_text(encoding="utf-8")
    texte = _texte_din_cod(sursa)
    assert not [t for t in texte if re.search(r"apelar|apelăr", t)]


def test_fara_specificatori_de_format_si_etichete_inghesuite():
    cod = "\n".join(_celule(CAPITOL, "code") + [UNELTE.read_text(encoding="utf-8")])
    assert not re.search(r"\{[^{}]*:[<>^]?\d*\.\d+[fegs%]\}", cod), "numerele trec prin curs_compilare.cifre"
    assert "gr.)" not in cod, "etichetele „n (g gr.)” se suprapuneau pe axa x"
    assert "secondary_xaxis" in cod


# --- faptele, pe versiunea instalată ----------------------------------------------------------


def _strat(x):
    return torch.sin(x) * 0.9 + 0.1


def _bucla_cu_intrerupere(x):
    for pas in range(4):
        x = _strat(x)
        if pas == 1:
            torch._dynamo.graph_break()
    return x


def test_fapt_bucla_sare_cadrul_dar_compileaza_functiile_apelate():
    torch._dynamo.reset()
    numarator = NumaratorCompilari()
    x = torch.randn(8)
    torch.testing.assert_close(torch.compile(_bucla_cu_intrerupere, backend=numarator)(x), _bucla_cu_intrerupere(x))
    assert (numarator.compilari, numarator.rulari, numarator.operatii_pe_graf()) == (1, 4, [3])
    torch._dynamo.reset()
    with pytest.raises(Exception, match="graph_break"):
        torch.compile(_bucla_cu_intrerupere, backend="eager", fullgraph=True)(x)
    torch._dynamo.reset()


def test_fapt_dynamic_true_recompileaza_la_lotul_1():
    torch._dynamo.reset()
    numarator = NumaratorCompilari()
    f = torch.compile(lambda t: t * 2 + 1, backend=numarator, dynamic=True)
    with jurnal_torch(guards=True) as jurnal:
        for lot in (8, 16, 32):
            f(torch.randn(lot, 4))
    assert numarator.compilari == 1
    assert jurnal.linii("2 <= L['t'].size()[0]")
    f(torch.randn(1, 4))
    torch._dynamo.reset()
    assert numarator.compilari == 2


def test_fapt_limita_de_recompilari():
    torch._dynamo.reset()
    numarator = NumaratorCompilari()
    f = torch.compile(lambda t: t * 2, backend=numarator, dynamic=False)
    strict = torch.compile(lambda t: t * 3, backend="eager", dynamic=False, fullgraph=True)
    with limita_recompilari(3), jurnal_torch():
        for n in range(2, 8):
            f(torch.randn(n))
        rulari = numarator.rulari
        f(torch.randn(2))
        assert numarator.rulari == rulari + 1, "o formă compilată înainte de limită rulează compilat"
        f(torch.randn(7))
        assert numarator.rulari == rulari + 1 and numarator.compilari == 3, "o formă nouă rulează eager"
        with pytest.raises(torch._dynamo.exc.FailOnRecompileLimitHit):
            for n in range(2, 8):
                strict(torch.randn(n))
        strict(torch.randn(2))
    torch._dynamo.reset()


def test_verificarea_exercitiului_3_spune_cel_putin_2():
    rezultat = cap02.exercitiul_3(lambda f, backend: torch.compile(f, backend=backend, dynamic=True))
    assert rezultat and "cel puțin 2" in rezultat.mesaj


def test_lanturile_generate_au_fisier_sursa_ca_dynamo_sa_nu_le_amestece():
    """Pe PyTorch 2.11, o funcție fără fișier sursă (creată cu exec) e învelită de torch.compile în
    aceeași funcție internă ca toate celelalte: un singur cache Dynamo pentru toate lanțurile, deci
    limita de recompilări atinsă și lanțuri măsurate, de fapt, eager. `fa_lant` le dă un fișier."""
    import inspect

    sursa = next(s for s in _celule(CAPITOL, "code") if "def fa_lant(" in s)
    spatiu = {"torch": torch, "print": lambda *a, **k: None}
    exec(sursa, spatiu)
    lanturi = [spatiu["fa_lant"](n)[0] for n in (0, 1, 3)]
    assert all(inspect.getsourcefile(f) for f in lanturi)
    assert len({f.__code__ for f in lanturi}) == 3
    torch._dynamo.reset()
    x = torch.randn(8)
    for f in lanturi:
        torch.testing.assert_close(torch.compile(f, backend="eager")(x), f(x))
