"""Verificarea rapidă a mașinii (`make verifica`): tabelul, codul de ieșire, profilul rapid și
o rulare adevărată pe notebook-uri mici, făcute aici."""

import os
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from curs_compilare import cifre
from curs_compilare.instructor import verificare_rapida
from curs_compilare.mediu import VARIABILA_PROFIL


@pytest.fixture
def curs_fals(tmp_path, monkeypatch):
    """Un dosar de curs cu două capitole și o soluție (conținutul nu contează: executorul e fals)."""
    for dosar in ("assets", "notebooks", "solutions"):
        (tmp_path / dosar).mkdir()
    for cale in ("notebooks/00_a.ipynb", "notebooks/01_b.ipynb", "solutions/00_a_solutii.ipynb"):
        nbformat.write(new_notebook(cells=[new_code_cell("1")]), tmp_path / cale)
    monkeypatch.setenv("CURS_RADACINA", str(tmp_path))
    monkeypatch.setenv(VARIABILA_PROFIL, "complet")
    # executorul fals trăiește în procesul acesta: notebook-urile, unul după altul, pe orice mașină
    monkeypatch.setattr(verificare_rapida, "paralel_implicit", lambda: 1)
    return tmp_path


def _executor_fals(esuate=(), apeluri=None):
    def executa(cale, dosar_executate, limita_celula, limita_notebook=None):
        if apeluri is not None:
            apeluri.append({"cale": Path(cale).name, "profil": os.environ.get(VARIABILA_PROFIL),
                            "limita_notebook": limita_notebook, "limita_celula": limita_celula,
                            "dosar": Path(dosar_executate)})
        rau = Path(cale).name in esuate
        return {"cale": Path(cale).as_posix(), "trecut": not rau, "secunde": 2.25,
                "eroare": "Traceback...\nValueError: intenționat" if rau else None,
                "prima_linie_eroare": "ValueError: intenționat" if rau else None, "cifre": []}
    return executa


def test_tabelul_si_codul_de_iesire_cu_un_esec(curs_fals, monkeypatch, capsys):
    apeluri = []
    monkeypatch.setattr(verificare_rapida, "executa_notebook", _executor_fals({"01_b.ipynb"}, apeluri))
    cod = verificare_rapida.main(["--limita-notebook", "42"])
    assert cod == 1
    iesire = capsys.readouterr().out
    randuri = {r.split()[0]: r for r in iesire.splitlines() if r.startswith("notebooks/")}
    assert set(randuri) == {"notebooks/00_a.ipynb", "notebooks/01_b.ipynb"}  # fără soluții, implicit
    assert "trecut" in randuri["notebooks/00_a.ipynb"] and "2,2" in randuri["notebooks/00_a.ipynb"]
    assert "EȘUAT" in randuri["notebooks/01_b.ipynb"]
    assert randuri["notebooks/01_b.ipynb"].endswith("ValueError: intenționat")
    assert any(r.startswith("notebook ") and r.split()[1:4] == ["stare", "secunde", "primul"] for r in iesire.splitlines())
    assert "A eșuat 1 din 2 notebook-uri" in iesire
    assert "Mașina:" in iesire and "Dispozitiv:" in iesire and "Profil de dimensiuni: rapid" in iesire
    # Profilul rapid, limita dată fiecărui notebook, apoi profilul vechi pus la loc.
    assert [a["profil"] for a in apeluri] == ["rapid", "rapid"]
    assert all(a["limita_notebook"] == 42 and a["limita_celula"] == 42 for a in apeluri)
    assert all(a["dosar"] == curs_fals / "build" / "verificare" / "executate" for a in apeluri)
    assert os.environ[VARIABILA_PROFIL] == "complet"
    assert not any(c in iesire for c in "\u015f\u0163\u015e\u0162")


def test_totul_trecut_da_cod_zero_si_solutiile_doar_la_cerere(curs_fals, monkeypatch, capsys):
    apeluri = []
    monkeypatch.setattr(verificare_rapida, "executa_notebook", _executor_fals((), apeluri))
    assert verificare_rapida.main(["--solutii"]) == 0
    assert [a["cale"] for a in apeluri] == ["00_a.ipynb", "01_b.ipynb", "00_a_solutii.ipynb"]
    assert "Mașina e gata: toate cele 3 notebook-uri au trecut" in capsys.readouterr().out


def test_verifica_din_colab_intoarce_tabelul(curs_fals, monkeypatch, capsys):
    monkeypatch.delenv(VARIABILA_PROFIL)
    monkeypatch.setattr(verificare_rapida, "executa_notebook", _executor_fals({"00_a.ipynb"}))
    rezultat = verificare_rapida.verifica(afiseaza=False)
    assert capsys.readouterr().out == ""
    assert [(r["notebook"], r["trecut"]) for r in rezultat.randuri] == [("notebooks/00_a.ipynb", False), ("notebooks/01_b.ipynb", True)]
    assert rezultat.randuri[0]["eroare"] == "ValueError: intenționat"
    assert (rezultat.trecute, rezultat.esuate, rezultat.cod_iesire) == (1, 1, 1)
    assert "EȘUAT" in rezultat.tabel() and "Dispozitiv:" in rezultat.text()
    assert repr(rezultat) == "Verificare: 1 trecute, 1 eșuate (cod de ieșire 1)"
    assert VARIABILA_PROFIL not in os.environ  # nicio urmă în procesul din Colab


def test_fara_niciun_notebook_nu_trece(curs_fals, monkeypatch):
    for cale in (curs_fals / "notebooks").glob("*.ipynb"):
        cale.unlink()
    monkeypatch.setattr(verificare_rapida, "executa_notebook", _executor_fals())
    rezultat = verificare_rapida.verifica(afiseaza=False)
    assert rezultat.cod_iesire == 1 and "Niciun notebook" in rezultat.text()


def test_fara_dosarul_cursului_explica_in_romana(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(verificare_rapida, "radacina_cursului", lambda: None)
    assert verificare_rapida.main([]) == 2
    assert "Nu găsesc dosarul cursului" in capsys.readouterr().err


@pytest.mark.parametrize("paralel", [1, 3])
def test_o_rulare_adevarata_pe_notebookuri_mici(tmp_path, monkeypatch, paralel):
    """Executorul adevărat (cel al validării): un notebook care trece (și vede profilul rapid),
    unul cu o excepție și unul care depășește limita notebook-ului; unul după altul sau toate
    deodată, în procese separate (rândurile rămân în ordinea dată)."""
    monkeypatch.delenv(VARIABILA_PROFIL, raising=False)
    celule = {
        # pe Linux, kernel-ul ascultă pe socluri Unix: porturile TCP alese la pornire se puteau ciocni
        "bun.ipynb": ("import os\nassert os.environ['CURS_PROFIL'] == 'rapid'\n"
                      "from ipykernel.kernelapp import IPKernelApp\n"
                      "assert os.name != 'posix' or IPKernelApp.instance().transport == 'ipc'\nprint('gata')"),
        "rau.ipynb": "raise ValueError('intenționat')",
        "lent.ipynb": "import time\ntime.sleep(120)",
    }
    for nume, sursa in celule.items():
        nbformat.write(new_notebook(cells=[new_code_cell(sursa)]), tmp_path / nume)
    monkeypatch.chdir(tmp_path)
    rezultat = verificare_rapida.verifica(list(celule), limita_notebook=12, iesire=tmp_path / "iesire", afiseaza=False,
                                          paralel=paralel)
    assert [r["notebook"] for r in rezultat.randuri] == list(celule)
    assert rezultat.paralel == paralel and ("deodată" in rezultat.concluzie()) == (paralel > 1)
    stari = {r["notebook"]: r for r in rezultat.randuri}
    assert stari["bun.ipynb"]["trecut"] and stari["bun.ipynb"]["eroare"] is None
    assert not stari["rau.ipynb"]["trecut"]
    assert stari["rau.ipynb"]["eroare"] == "ValueError: intenționat"
    assert not stari["lent.ipynb"]["trecut"]
    assert "limita notebook-ului (12 s)" in stari["lent.ipynb"]["eroare"]
    assert stari["lent.ipynb"]["secunde"] < 60
    assert rezultat.cod_iesire == 1
    assert (tmp_path / "iesire" / "executate" / "bun.ipynb").is_file()
    assert cifre.probleme_de_format(rezultat.tabel()) == []


@pytest.mark.parametrize("masina, asteptat", [
    (dict(nuclee=2, memorie_gib=12.7, memorie_gpu_gib=15.0), 1),     # Colab, un T4
    (dict(nuclee=16, memorie_gib=128, memorie_gpu_gib=140.0), 4),    # o stație cu un H200
    (dict(nuclee=64, memorie_gib=512, memorie_gpu_gib=80.0), 4),     # cel mult PARALEL_MAXIM
    (dict(nuclee=16, memorie_gib=24, are_gpu=False), 2),             # memoria mașinii limitează
    (dict(nuclee=16, memorie_gib=128, memorie_gpu_gib=24.0), 2),     # memoria GPU-ului limitează
    (dict(nuclee=16, memorie_gib=128, are_gpu=True), 1),             # un GPU fără nvidia-smi: unul după altul
    (dict(nuclee=8, memorie_gib=16, are_gpu=False), 1),              # un laptop
    (dict(nuclee=1, memorie_gib=4, are_gpu=False), 1),               # niciodată 0
])
def test_cate_notebookuri_deodata_dupa_masina(masina, asteptat):
    assert verificare_rapida.paralel_implicit(**masina) == asteptat


def test_tabelul_arata_memoria_gpu_doar_cand_s_a_masurat():
    randuri = [
        {"notebook": "notebooks/00_a.ipynb", "trecut": True, "secunde": 3.0, "eroare": None, "memorie_gpu_gib": 4.625},
        {"notebook": "notebooks/01_b.ipynb", "trecut": False, "secunde": 1.5, "eroare": "ValueError: x", "memorie_gpu_gib": None},
    ]
    tabel = verificare_rapida.Verificare(randuri=randuri).tabel().splitlines()
    assert tabel[0].split()[:5] == ["notebook", "stare", "secunde", "GPU", "GiB"]
    assert "4,62" in tabel[2] or "4,63" in tabel[2]
    assert tabel[3].split()[3] == "—" and tabel[3].endswith("ValueError: x")
    fara = verificare_rapida.Verificare(randuri=[{**r, "memorie_gpu_gib": None} for r in randuri]).tabel()
    assert "GPU GiB" not in fara
    assert cifre.probleme_de_format("\n".join(tabel)) == []
