"""Adresa cursului (un singur loc) și comanda de validare a instructorului."""

import json
import shutil
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from curs_compilare import depozit, validare


def test_insigna_si_adresa_colab_decurg_din_adresa():
    insigna = depozit.insigna_colab("notebooks/00_x.ipynb")
    proprietar = depozit.ADRESA.removeprefix("https://github.com/")
    assert f"colab.research.google.com/github/{proprietar}/blob/main/notebooks/00_x.ipynb" in insigna
    assert depozit.ADRESA in depozit.celula_pregatire()


def test_rescrie_adrese_vechi():
    vechi = (
        "[x](https://colab.research.google.com/github/vechi/depozit/blob/main/notebooks/a.ipynb)\n"
        "git clone https://github.com/vechi/depozit.git\n"
        "vezi https://github.com/pytorch/pytorch/issues/1"
    )
    nou = depozit.rescrie_adrese(vechi)
    assert depozit.adrese_gasite(nou) == {depozit.ADRESA}
    assert "https://github.com/pytorch/pytorch/issues/1" in nou  # alte legături rămân


def test_sincronizeaza_repara_un_notebook(tmp_path):
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "solutions").mkdir()
    nb = new_notebook(cells=[
        new_markdown_cell("# T\n[![Open](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/a/b/blob/main/x.ipynb)"),
        new_code_cell(depozit.MARCAJ_PREGATIRE + "\nvechi"),
    ])
    cale = tmp_path / "notebooks" / "01_t.ipynb"
    nbformat.write(nb, cale)
    assert depozit.sincronizeaza(tmp_path, doar_verifica=True) == ["notebooks/01_t.ipynb"]
    depozit.sincronizeaza(tmp_path)
    assert depozit.sincronizeaza(tmp_path, doar_verifica=True) == []
    nou = nbformat.read(cale, as_version=4)
    assert depozit.adresa_colab("notebooks/01_t.ipynb") in nou.cells[0].source
    assert nou.cells[1].source == depozit.celula_pregatire()


def test_validarea_executa_si_raporteaza(tmp_path, monkeypatch):
    bun = new_notebook(cells=[new_code_cell(
        "from curs_compilare import cifre\ncifre.inregistreaza('99.test', 42.0, 'GB/s', 'o cifră de test')"
    )])
    rau = new_notebook(cells=[new_code_cell("raise ValueError('intenționat')")])
    nbformat.write(bun, tmp_path / "bun.ipynb")
    nbformat.write(rau, tmp_path / "rau.ipynb")
    monkeypatch.chdir(tmp_path)
    cod = validare.main(["bun.ipynb", "rau.ipynb", "--iesire", "raport", "--limita-celula", "120"])
    assert cod == 1  # un notebook a eșuat
    date = json.loads(Path("raport/rezultate.json").read_text())
    stari = {Path(n["cale"]).name: n["trecut"] for n in date["notebookuri"]}
    assert stari == {"bun.ipynb": True, "rau.ipynb": False}
    assert date["cifre"][0]["valoare"] == 42.0
    raport = Path("raport/raport.md").read_text()
    assert "o cifră de test" in raport and "EȘUAT" in raport and "intenționat" in raport
    assert Path("raport/durate.png").stat().st_size > 1000
    assert Path("raport/executate/bun.ipynb").is_file()
    shutil.rmtree("raport")


def test_validarea_pica_un_notebook_cu_o_concluzie_contrazisa(tmp_path, monkeypatch):
    nb = new_notebook(cells=[new_code_cell("print('compilatul e de 0,9 ori mai rapid')")])
    nbformat.write(nb, tmp_path / "contrazis.ipynb")
    monkeypatch.chdir(tmp_path)
    assert validare.main(["contrazis.ipynb", "--iesire", "raport", "--limita-celula", "120"]) == 1
    date = json.loads(Path("raport/rezultate.json").read_text())
    assert "de 0,9 ori mai rapid" in date["notebookuri"][0]["eroare"]


def _raport(*cifre):
    return {"cifre": [dict(zip(("cheie", "valoare", "depinde_de_procesor"), c), unitate="ms", descriere=c[0]) for c in cifre]}


def test_compararea_a_doua_rulari(tmp_path, capsys):
    unu = _raport(("a", 10.0, False), ("b", 10.0, True), ("c", 10.0, False), ("doar_in_unu", 1.0, False))
    doi = _raport(("a", 11.0, False), ("b", 20.0, True), ("c", 12.0, False))
    randuri = {r["cheie"]: r for r in validare.compara_rapoarte(unu, doi)}
    assert set(randuri) == {"a", "b", "c"}
    assert randuri["a"]["verdict"] == "la fel" and randuri["a"]["factor"] == pytest.approx(1.1)
    assert randuri["b"]["verdict"] == "depinde de procesor"
    assert randuri["c"]["verdict"] == "diferă"
    (tmp_path / "1.json").write_text(json.dumps(unu))
    (tmp_path / "2.json").write_text(json.dumps(doi))
    assert validare.main(["--compara", str(tmp_path / "1.json"), str(tmp_path / "2.json")]) == 1
    iesire = capsys.readouterr().out
    assert "3 cifre comune: 1 la fel, 1 peste prag, dar dependente de procesor, 1 diferite." in iesire
    assert validare.main(["--compara", str(tmp_path / "1.json"), str(tmp_path / "1.json")]) == 0
