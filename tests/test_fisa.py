"""Fișa atelierului, gata de tipărit: HTML de sine stătător, A4, și (unde există Chromium) o
singură pagină în PDF."""

import re

import pytest

from curs_compilare.instructor import fisa


def test_pagina_html_e_de_sine_statatoare_si_are_toata_fisa(tmp_path):
    assert fisa.main(["--iesire", str(tmp_path)]) == 0
    pagina = (tmp_path / "fisa.html").read_text(encoding="utf-8")
    assert "@page { size: A4" in pagina and '<html lang="ro">' in pagina
    # nimic încărcat din rețea: niciun script, nicio foaie de stil sau imagine de la o adresă
    assert not re.search(r"<(script|link|img)\b", pagina)
    assert "http://" not in pagina and "https://" not in pagina
    titluri = re.findall(r"^## (.+)$", fisa.FISA.read_text(encoding="utf-8"), flags=re.M)
    assert len(titluri) >= 4
    assert pagina.count("<h2>") == len(titluri)
    assert "Harta: simptom → prima comandă" in pagina and "Regulile măsurării" in pagina
    assert pagina.count("<table>") == fisa.FISA.read_text(encoding="utf-8").count("\n|---")


def test_numarul_de_pagini_al_unui_pdf():
    assert fisa.numar_pagini_pdf(b"<< /Type /Pages /Kids [3 0 R] >> << /Type /Page >> << /Type/Page >>") == 2
    assert fisa.numar_pagini_pdf(b"<< /Type /Pages >>") == 0


def test_fisa_incape_pe_o_pagina_a4(tmp_path):
    """Cu Chromium și playwright (nu și în CI): PDF-ul fișei are exact o pagină."""
    pytest.importorskip("playwright")
    if fisa.chromium() is None:
        pytest.skip("fără Chromium pe mașină")
    assert fisa.main(["--iesire", str(tmp_path), "--pdf"]) == 0
    assert fisa.numar_pagini_pdf((tmp_path / "fisa.pdf").read_bytes()) == 1


def test_fara_chromium_pdf_ul_se_explica(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(fisa, "chromium", lambda: None)
    assert fisa.main(["--iesire", str(tmp_path), "--pdf"]) == 2
    assert "Nu găsesc Chromium" in capsys.readouterr().err
    assert (tmp_path / "fisa.html").is_file()  # pagina HTML se scrie oricum
    # `make fisa`: fără Chromium, doar pagina, fără eroare
    assert fisa.main(["--iesire", str(tmp_path), "--pdf-daca-se-poate"]) == 0
    assert "Nu găsesc Chromium" in capsys.readouterr().err
