"""`benchmarks/zgomot_precizie.py`: repetă experimentul de precizie al capitolului 06 de mai multe
ori și spune cât de des ar ieși alt verdict. Aici, pe procesor, în profilul rapid, cu zgomotul
imitat și fără rulări compilate (compilarea e lungă pe procesor)."""

import json
import runpy
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "zgomot_precizie.py"


def test_scriptul_repeta_experimentul_si_da_distributia_rapoartelor(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CURS_PROFIL", "rapid")
    iesire = tmp_path / "zgomot.json"
    monkeypatch.setattr(sys, "argv", [str(SCRIPT), "--eager", "5", "--compilate", "0", "--pasi", "20",
                                      "--iesire", str(iesire)])
    with pytest.raises(SystemExit) as iesit:
        runpy.run_path(str(SCRIPT), run_name="__main__")
    assert iesit.value.code == 0
    text = capsys.readouterr().out
    assert "zgomot IMITAT" in text and "o altă rulare eager (verdict: precizia)" in text
    date = json.loads(iesire.read_text(encoding="utf-8"))
    assert len(date["eager"]) == 5 and date["compilate"] == [] and date["imitat"] is True
    # câte 4 rulări din 5 formează plicul, a cincea e judecată: 5 plicuri, câte un raport
    assert len(date["praguri"]) == 5 and len(date["rapoarte_nul"]) == 5
    assert all(p > 0 for p in date["praguri"])  # zgomotul imitat desparte rulările
