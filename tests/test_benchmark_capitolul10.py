"""Scriptul capitolului 10 (`benchmarks/capitolul10.py`) pe procesor, cu o formă minusculă: tipărește
partea din debitul SDPA și compară învelișul comun (formele dinamice automate) cu kernel-ul formei;
partea pierderilor spune, fără GPU, de ce nu rulează."""

import importlib.util
from pathlib import Path

RADACINA = Path(__file__).resolve().parent.parent


def _script():
    spec = importlib.util.spec_from_file_location("banc10", RADACINA / "benchmarks" / "capitolul10.py")
    modul = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(modul)
    return modul


def test_scriptul_pe_procesor(capsys, monkeypatch, tmp_path):
    import json

    fisier = tmp_path / "cifre.jsonl"
    monkeypatch.setenv("CURS_FISIER_CIFRE", str(fisier))
    assert _script().main(["--rapid", "--forme", "1x2x128x16"]) == 0
    text = capsys.readouterr().out
    assert "din debitul SDPA" in text and "ținta pe un GPU mare: 85%" in text
    assert "Un singur înveliș compilat" in text and "(cu kernel-ul ei:" in text
    assert "Partea pierderilor cere un GPU" in text
    chei = [json.loads(r)["cheie"] for r in fisier.read_text(encoding="utf-8").splitlines()]
    assert chei == ["10.banc_flex_fata_de_sdpa_1x2x128x16"]
