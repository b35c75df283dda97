"""Exploratorul merge cu ipywidgets 8 (instalat) și 7.7.1 (cel de pe Colab), se afișează o
singură dată într-un kernel Jupyter adevărat (și când celula se termină cu apelul) și se degradează
la un grafic static fără widget-uri."""

import os
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
assert isinstance(caseta, ipywidgets.VBox)  # API-ul: tot caseta de widget-uri
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


#: Celulele rulate în kernel: exploratorul ca ultimă expresie a celulei (cum îl cheamă capitolele
#: 08 și 09), apoi ca `_ = ...`, apoi caseta cerută din nou într-o celulă nouă.
CELULE = [
    COD,
    "from curs_compilare.explorator import Control, exploreaza\n"
    "exploreaza(lambda n: print('n =', n), n=Control('n', [1, 2]))",
    "_ = exploreaza(lambda n: print('n =', n), n=Control('n', [1, 2]))",
    "caseta",
]


def _widgeturi_afisate(mesaje) -> int:
    return sum(1 for m in mesaje if m["msg_type"] in ("display_data", "execute_result")
               and "application/vnd.jupyter.widget-view+json" in m["content"].get("data", {}))


def _in_kernel(cale_suplimentara=None) -> list[list[dict]]:
    """Rulează `CELULE` într-un kernel Jupyter nou (ca o celulă de notebook) și întoarce mesajele
    de ieșire ale fiecărei celule."""
    pytest.importorskip("jupyter_client")
    from jupyter_client.manager import start_new_kernel

    mediu = dict(os.environ)
    if cale_suplimentara:
        mediu["PYTHONPATH"] = os.pathsep.join([str(cale_suplimentara), mediu.get("PYTHONPATH", "")])
    km, kc = start_new_kernel(kernel_name="python3", env=mediu, cwd=str(RADACINA))
    try:
        rezultate = []
        for celula in CELULE:
            mesaje = []
            raspuns = kc.execute_interactive(celula, output_hook=mesaje.append, timeout=120)
            assert raspuns["content"]["status"] == "ok", (celula, raspuns["content"], mesaje)
            rezultate.append(mesaje)
        return rezultate
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def _verifica_in_kernel(cale_suplimentara=None) -> str:
    rezultate = _in_kernel(cale_suplimentara)
    # fiecare celulă cu un explorator arată exact un widget: nici dublat ca rezultat al celulei,
    # nici pierdut cu `_ =`; caseta cerută într-o celulă nouă se afișează din nou
    assert [_widgeturi_afisate(m) for m in rezultate] == [1, 1, 1, 1], rezultate
    texte = [m["content"]["text"] for m in rezultate[0] if m["msg_type"] == "stream"]
    return "".join(texte).strip().splitlines()[-1]


def test_explorator_cu_ipywidgets_instalat():
    assert _verifica_in_kernel()


@pytest.mark.skipif(not IPYWIDGETS7.is_dir(), reason="ipywidgets 7.7.1 se instalează de `make test`")
def test_explorator_cu_ipywidgets_7_7_1():
    assert _verifica_in_kernel(IPYWIDGETS7) == "7.7.1"


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
