"""Concluziile tipărite din măsurători: fiecare ramură (mai rapid, la fel, mai lent) și
detectorul de propoziții care se contrazic singure, aplicat și ieșirii notebook-urilor."""

import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from curs_compilare import concluzii
from curs_compilare.masurare import Raport

RADACINA = Path(__file__).resolve().parent.parent


def test_mai_rapid_doar_cand_rundele_o_arata():
    text = concluzii.concluzie_accelerare(Raport(2.31, 2.25, 2.4, 5))
    assert text.startswith("Varianta compilată e de 2,31 ori mai rapidă decât cea eager")
    assert "(în 5 runde: între 2,25× și 2,4×)" in text
    cu_cuantile = concluzii.concluzie_accelerare(Raport(2.31, 2.0, 2.6, 5, jos=2.25, sus=2.4))
    assert "(20–80% din 5 runde: între 2,25× și 2,4×)" in cu_cuantile
    assert not concluzii.contradictii(text)


def test_in_zgomot_spune_la_fel():
    for raport in (Raport(1.05, 0.95, 1.12, 5), Raport(0.99, 0.98, 0.995, 5)):
        text = concluzii.concluzie_accelerare(raport, "Pasul compilat", "cel eager", feminin=False)
        assert "durează practic la fel" in text and "zgomotul" in text
        assert "mai rapid" not in text and "mai lent" not in text


def test_mediana_departe_de_1_in_runde_imprastiate_nu_e_la_fel():
    """Rundele îl încadrează pe 1, dar mediana e 0,148×: nici „practic la fel”, nici „mai lent” nu
    urmează din cifre; propoziția spune că zgomotul decide (văzut în capitolul 10, profilul rapid)."""
    text = concluzii.concluzie_accelerare(Raport(0.148, 0.09, 1.3, 5), "Construcția măștii", "un apel")
    assert "practic la fel" not in text and "mai rapid" not in text and "mai lent" not in text
    assert "nu dă un verdict" in text and "decide zgomotul" in text and "0,148×" in text
    assert not concluzii.contradictii(text)
    # Mediana aproape de 1, dar runde între 0,63× și 1,77×: nici atunci „practic la fel”.
    larg = concluzii.concluzie_accelerare(Raport(0.991, 0.63, 1.77, 5), "Modelul", "cel cu SDPA", feminin=False)
    assert "practic la fel" not in larg and "decide zgomotul" in larg


def test_in_zgomot_din_toleranta_spune_toleranta():
    # Rundele nu-l încadrează pe 1, dar mediana e în toleranța raportului (15%, ca la compilare).
    raport = Raport(0.857, 0.84, 0.875, 5, jos=0.843, sus=0.871, toleranta=0.15)
    text = concluzii.concluzie_accelerare(raport, "Compilarea a doua", "prima", feminin=True)
    assert "durează practic la fel" in text
    assert "cu cel mult 15%" in text and "toleranța" in text
    assert "între 0,843× și 0,871×" in text
    # Când rundele îl încadrează pe 1, nu se vorbește de toleranță.
    incadrat = concluzii.concluzie_accelerare(Raport(1.01, 0.97, 1.05, 5))
    assert "toleranța" not in incadrat


def test_mai_lent_spune_de_ce_si_nu_se_contrazice(monkeypatch):
    monkeypatch.setenv("CURS_PROFIL", "rapid")
    text = concluzii.concluzie_accelerare(Raport(0.8, 0.75, 0.86, 5))
    assert "e mai lentă decât cea eager: 0,8×" in text
    assert "durează de 1,25 ori mai mult" in text
    assert "profilul rapid" in text
    assert "mai rapid" not in text and not concluzii.contradictii(text)
    cauza = concluzii.concluzie_accelerare(Raport(0.8, 0.75, 0.86, 5), cauza="motivul meu")
    assert cauza.endswith("motivul meu.")


def test_cauza_depinde_de_ce_se_compara(monkeypatch):
    """Cauza implicită („gărzile și învelișul apelului compilat”) e spusă doar pentru o variantă
    compilată față de același cod eager; pentru două variante de cod, doar cea care reiese din
    grafuri, sau niciuna."""
    monkeypatch.setenv("CURS_PROFIL", "complet")
    lent = Raport(0.8, 0.75, 0.86, 5, jos=0.77, sus=0.84)
    fara = concluzii.concluzie_accelerare(lent, "Varianta X", "cea Y", ce_se_compara="variante")
    assert fara.endswith("durează de 1,25 ori mai mult.") and "Cauza" not in fara and "gărzi" not in fara
    assert concluzii.cauza_lentorii(lent, ce_se_compara="variante") is None
    # allow_in_graph: un graf, față de două ale variantei care se rupe: nu grafurile în plus o încetinesc
    mai_putine = concluzii.concluzie_accelerare(lent, "Varianta allow_in_graph", "cea care se rupe",
                                                ce_se_compara="variante", grafuri=(1, 2))
    assert "nu vine din grafuri în plus" in mai_putine and "are 1 graf, față de 2" in mai_putine
    mai_multe = concluzii.cauza_lentorii(lent, ce_se_compara="variante", grafuri=(5, 1))
    assert "are 5 grafuri, față de 1" in mai_multe and "întrerupere" in mai_multe
    rupt = concluzii.cauza_lentorii(lent, grafuri=(4, 0))
    assert "se rupe în 4 grafuri" in rupt
    assert "motivul meu" in concluzii.concluzie_accelerare(lent, cauza="motivul meu", ce_se_compara="variante")
    with pytest.raises(ValueError, match="ce_se_compara"):
        concluzii.cauza_lentorii(lent, ce_se_compara="altceva")
    assert not concluzii.contradictii(mai_putine + fara)


def test_cauza_pe_procesor_si_pe_un_gpu_limitat_de_procesor(monkeypatch):
    monkeypatch.setenv("CURS_PROFIL", "complet")
    assert "pe procesor" in concluzii.cauza_lentorii(pe_gpu=False)
    limitat = Raport(0.9, 0.85, 0.93, 5, depinde_de_procesor=True)
    assert "limitat de procesor" in concluzii.cauza_lentorii(limitat, pe_gpu=True)
    limitat = Raport(0.9, 0.85, 0.93, 5, depinde_de_procesor=True, limitare="procesor")
    assert "limitat de procesor" in concluzii.cauza_lentorii(limitat, pe_gpu=True)
    # un apel echilibrat nu e numit „limitat de procesor”
    echilibrat = Raport(0.9, 0.85, 0.93, 5, depinde_de_procesor=True, limitare="echilibrat")
    cauza = concluzii.cauza_lentorii(echilibrat, pe_gpu=True)
    assert "echilibrat" in cauza and "limitat de procesor" not in cauza


def test_factorii_mari_au_de():
    text = concluzii.concluzie_accelerare(Raport(25.4, 24.0, 26.0, 5))
    assert "e de 25,4 ori mai rapidă" in text
    assert "e de 120 de ori mai rapidă" in concluzii.concluzie_accelerare(Raport(120.4, 118.0, 122.0, 5))


@pytest.mark.parametrize(
    "text, gasite",
    [
        ("compilatul e de 0,94 ori mai rapid", ["de 0,94 ori mai rapid"]),
        ("lanțul durează de 0.9 ori mai mult", ["de 0.9 ori mai mult"]),
        ("0,85× mai rapidă", ["0,85× mai rapidă"]),
        ("de 1 ori mai lent", ["de 1 ori mai lent"]),
        ("e de 2,5 ori mai rapid; 3× mai rapidă", []),
        ("accelerare 0,94× (mai lent, cu motivul)", []),
    ],
)
def test_contradictii(text, gasite):
    assert concluzii.contradictii(text) == gasite


def test_testele_pica_un_notebook_care_tipareste_o_concluzie_contrazisa(tmp_path):
    """conftest.py citește ce tipărește fiecare celulă executată de nbval."""
    shutil.copy(RADACINA / "conftest.py", tmp_path / "conftest.py")
    nb = new_notebook(cells=[
        new_code_cell("print('varianta compilată e de 2,5 ori mai rapidă')"),
        new_code_cell("print('varianta compilată e de 0,94 ori mai rapidă')"),
    ])
    (tmp_path / "notebooks").mkdir()
    nbformat.write(nb, tmp_path / "notebooks" / "t.ipynb")
    proces = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval-lax", "--nbval-current-env",
         "notebooks/t.ipynb"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )
    assert proces.returncode == 1, proces.stdout[-2000:]
    assert "1 failed, 1 passed" in proces.stdout
    assert "de 0,94 ori mai rapid" in proces.stdout


def test_text_iesiri_poate_lasa_deoparte_stderr():
    from curs_compilare.concluzii import text_iesiri

    iesiri = [{"output_type": "stream", "name": "stdout", "text": "al cursului"},
              {"output_type": "stream", "name": "stderr", "text": "AUTOTUNE mm 1.4182 ms 100.0%"}]
    assert "AUTOTUNE" in text_iesiri(iesiri)
    assert text_iesiri(iesiri, doar_stdout=True) == "al cursului"
