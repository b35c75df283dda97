"""Exploratorul merge cu ipywidgets 8 (instalat) și 7.7.1 (cel de pe Colab), și se degradează
la un grafic static fără widget-uri."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from curs_compilare import explorator

RADACINA = Path(__file__).resolve().parent.parent
IPYWIDGETS7 = RADACINA / ".venv" / "ipywidgets7"

COD = """
import ipywidgets
from curs_compilare.explorator import Control, exploreaza
apelari = []
caseta = exploreaza(
    lambda n, nume, activ: apelari.append((n, nume, activ)),
    n=Control("n", [("mic", 1), ("mare", 2)], implicit=2),
    nume=Control("nume", ["a", "b"]),
    activ=Control("activ", [("nu", False), ("da", True)], implicit=True),
)
assert caseta is not None
glisor, lista, comutator = caseta.children[0].children
assert type(glisor).__name__ == "SelectionSlider" and type(lista).__name__ == "Dropdown"
assert type(comutator).__name__ == "Dropdown"
assert apelari[-1] == (2, "a", True), apelari
glisor.value = 1
assert apelari[-1] == (1, "a", True), apelari
comutator.value = False
assert apelari[-1] == (1, "a", False), apelari
print(ipywidgets.__version__)
"""


def _ruleaza(cale_suplimentara=None):
    mediu = dict(os.environ)
    if cale_suplimentara:
        mediu["PYTHONPATH"] = os.pathsep.join([str(cale_suplimentara), mediu.get("PYTHONPATH", "")])
    rezultat = subprocess.run([sys.executable, "-c", COD], capture_output=True, text=True, env=mediu)
    assert rezultat.returncode == 0, rezultat.stderr
    return rezultat.stdout.strip().splitlines()[-1]


def test_explorator_cu_ipywidgets_instalat():
    assert _ruleaza()


@pytest.mark.skipif(not IPYWIDGETS7.is_dir(), reason="ipywidgets 7.7.1 se instalează de `make test`")
def test_explorator_cu_ipywidgets_7_7_1():
    assert _ruleaza(IPYWIDGETS7) == "7.7.1"


def test_explorator_static(monkeypatch, capsys):
    monkeypatch.setenv("CURS_FARA_WIDGETURI", "1")
    apelari = []
    rezultat = explorator.exploreaza(lambda a: apelari.append(a), a=explorator.Control("a", [3, 4], implicit=4))
    assert rezultat is None and apelari == [4]
    assert "nu sunt disponibile" in capsys.readouterr().out


def test_control_alege_tipul():
    assert explorator.Control("x", [1, 2.5]).este_numeric()
    assert not explorator.Control("x", ["a"]).este_numeric()
    assert explorator.Control("x", [1, 2], implicit=9).valoare_implicita() == 1
