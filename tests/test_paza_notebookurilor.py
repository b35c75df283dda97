"""conftest.py de la rădăcină face ca `make test` să eșueze dacă rularea testelor a modificat
ceva în notebooks/ sau solutions/. Verificăm asta într-o sesiune pytest separată."""

from pathlib import Path

pytest_plugins = ["pytester"]

CONFTEST = (Path(__file__).resolve().parent.parent / "conftest.py").read_text(encoding="utf-8")


def _pregateste(pytester, corp_test):
    pytester.makeconftest(CONFTEST)
    (pytester.path / "notebooks").mkdir()
    (pytester.path / "solutions").mkdir()
    (pytester.path / "notebooks" / "00_x.ipynb").write_text("{}", encoding="utf-8")
    pytester.makepyfile(test_ceva=corp_test)


def test_sesiunea_esueaza_daca_un_notebook_e_modificat(pytester):
    _pregateste(pytester, """
from pathlib import Path
def test_modifica():
    Path("notebooks/00_x.ipynb").write_text('{"schimbat": 1}')
""")
    rezultat = pytester.runpytest()
    assert rezultat.ret == 1
    rezultat.stdout.fnmatch_lines(["*au modificat fișiere*notebooks/00_x.ipynb*"])


def test_sesiunea_trece_daca_notebookurile_raman_neatinse(pytester):
    _pregateste(pytester, """
def test_nimic():
    assert True
""")
    assert pytester.runpytest().ret == 0
