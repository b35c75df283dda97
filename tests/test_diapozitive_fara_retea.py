"""Diapozitivele statice nu cer rețea: nici construirea, nici deschiderea lor. Partea fără browser
verifică HTML-ul; partea cu Chromium (sărită unde lipsește, de exemplu în CI) deschide două
capitole adevărate cu rețeaua tăiată, trece prin fiecare diapozitiv, îl fotografiază și verifică
navigarea cu tastele."""

import io
import re

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from curs_compilare.instructor import diapozitive, pagini
from curs_compilare.instructor.fisa import chromium

CAPITOLE = ["00_mediul_si_masurarea.ipynb", "03_fuziunea_kernelurilor.ipynb"]


def _numar_diapozitive(html: str) -> int:
    """Câte diapozitive verticale are fișierul: secțiunile din secțiunile de sub `.slides`
    (o secțiune fără secțiuni în ea e un diapozitiv singură)."""
    corp = html[html.index('<div class="slides">'):]
    total, adancime, copii = 0, 0, []
    for eticheta in re.finditer(r"<(/?)section\b", corp):
        if eticheta.group(1):
            adancime -= 1
            if adancime == 0:
                total += max(copii.pop(), 1)
        else:
            adancime += 1
            if adancime == 1:
                copii.append(0)
            elif adancime == 2:
                copii[-1] += 1
    return total


@pytest.fixture(scope="module")
def pachete(tmp_path_factory):
    dosar = tmp_path_factory.mktemp("diapozitive")
    return [diapozitive.construieste(diapozitive.RADACINA / "notebooks" / nume, dosar) for nume in CAPITOLE]


def test_fisierul_nu_cere_nimic_din_retea(pachete):
    for cale in pachete:
        html = cale.read_text(encoding="utf-8")
        assert pagini.resurse_din_retea(html) == [], cale.name
        assert "Reveal.initialize" not in html and "require(" not in html
        assert "unpkg.com" not in html and "cdnjs" not in html
        # scriptul și stilul prezentării sunt în fișier
        assert diapozitive.SCRIPT_PREZENTARE.read_text(encoding="utf-8") in html
        assert diapozitive.STIL_PREZENTARE.read_text(encoding="utf-8") in html
        assert _numar_diapozitive(html) > 10


def test_fara_retea_pe_un_notebook_mic(tmp_path):
    nb = new_notebook(cells=[new_markdown_cell("# Titlu\n\ntext"), new_code_cell("x = 1"),
                             new_markdown_cell("## Secțiunea\n\nalt text\n\n### Sub"), new_code_cell("y = 2")])
    cale = tmp_path / "99_mic.ipynb"
    nbformat.write(nb, cale)
    html = diapozitive.construieste(cale, tmp_path / "iesire").read_text(encoding="utf-8")
    assert pagini.resurse_din_retea(html) == []
    # secțiunea titlului (titlul, codul) și „## Secțiunea” (ea, „### Sub”, codul): 5 diapozitive
    assert _numar_diapozitive(html) == 5
    assert html.count("<script>") >= 1 and html.index("window.prezentare") < html.index("</body>")


def test_fisierele_prezentarii_sunt_in_pachet():
    import tomllib

    from pathlib import Path

    date = tomllib.loads((diapozitive.RADACINA / "pyproject.toml").read_text(encoding="utf-8"))
    incluse = date["tool"]["setuptools"]["package-data"]["curs_compilare.instructor"]
    for cale in (diapozitive.SCRIPT_PREZENTARE, diapozitive.STIL_PREZENTARE):
        assert cale.is_file() and Path(cale).name in incluse


def _cere_browserul():
    pytest.importorskip("playwright")
    if chromium() is None:
        pytest.skip("fără Chromium pe mașină")


def _imagine_cu_continut(png: bytes) -> bool:
    """Captura nu e o pagină goală: are și pixeli închiși (text), nu doar fundal."""
    import matplotlib.image as mpimg

    pixeli = mpimg.imread(io.BytesIO(png), format="png")[..., :3]
    return pixeli.std() > 0.02 and (pixeli.mean(axis=2) < 0.5).mean() > 0.002


def test_fiecare_diapozitiv_se_vede_fara_retea(pachete, tmp_path):
    _cere_browserul()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium(), args=["--no-sandbox"])
        try:
            for cale in pachete:
                pagina = browser.new_page(viewport={"width": 1280, "height": 720})
                cerute, erori = [], []

                def doar_fisiere(ruta, cerute=cerute):
                    if ruta.request.url.startswith("file:"):
                        ruta.continue_()
                    else:
                        cerute.append(ruta.request.url)
                        ruta.abort()

                pagina.route("**/*", doar_fisiere)
                pagina.on("pageerror", lambda e, erori=erori: erori.append(str(e)))
                pagina.goto(cale.as_uri())
                numar = pagina.evaluate("window.prezentare.numar")
                assert numar == _numar_diapozitive(cale.read_text(encoding="utf-8"))
                for i in range(numar):
                    pagina.evaluate(f"window.prezentare.arata({i})")
                    vizibile = pagina.evaluate(
                        "[...document.querySelectorAll('section.diapozitiv')]"
                        ".filter(s => s.getBoundingClientRect().height > 0)"
                        ".map(s => s.innerText.trim().length)")
                    assert len(vizibile) == 1 and vizibile[0] > 0, (cale.name, i, vizibile)
                    assert pagina.inner_text(".numar-diapozitiv") == f"{i + 1} / {numar}"
                    captura = pagina.screenshot(path=str(tmp_path / f"{cale.stem}_{i:02d}.png"))
                    assert _imagine_cu_continut(captura), (cale.name, i)
                assert cerute == [] and erori == [], (cerute, erori)
                pagina.close()
        finally:
            browser.close()
    assert len(list(tmp_path.glob("*.png"))) == sum(_numar_diapozitive(c.read_text(encoding="utf-8")) for c in pachete)


def test_tastele_si_adresa_ca_in_reveal(pachete):
    _cere_browserul()
    from playwright.sync_api import sync_playwright

    cale = pachete[0]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium(), args=["--no-sandbox"])
        try:
            pagina = browser.new_page(viewport={"width": 1280, "height": 720})
            pagina.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file:") else r.abort())
            pagina.goto(cale.as_uri())
            curent = "window.prezentare.curent()"
            assert pagina.evaluate(curent) == 0 and pagina.evaluate("location.hash") == "#/0/0"
            pagina.keyboard.press("ArrowDown")  # al doilea diapozitiv din prima secțiune
            assert pagina.evaluate("location.hash") == "#/0/1"
            pagina.keyboard.press("ArrowRight")  # începutul secțiunii a doua
            assert pagina.evaluate("location.hash") == "#/1/0"
            pozitie = pagina.evaluate(curent)
            pagina.keyboard.press("ArrowUp")  # sus, la primul din secțiune: nu se mișcă
            assert pagina.evaluate(curent) == pozitie
            pagina.keyboard.press("Space")
            assert pagina.evaluate(curent) == pozitie + 1
            pagina.keyboard.press("End")
            ultimul = pagina.evaluate("window.prezentare.numar") - 1
            assert pagina.evaluate(curent) == ultimul
            pagina.keyboard.press("PageDown")  # după ultimul nu mai e nimic
            assert pagina.evaluate(curent) == ultimul
            pagina.keyboard.press("Home")
            assert pagina.evaluate(curent) == 0
            # Esc: toate diapozitivele deodată; un clic pe unul îl prezintă
            pagina.keyboard.press("Escape")
            vizibile = pagina.evaluate("[...document.querySelectorAll('section.diapozitiv')]"
                                       ".filter(s => s.getBoundingClientRect().height > 0).length")
            assert vizibile == pagina.evaluate("window.prezentare.numar")
            pagina.locator("section.diapozitiv").nth(3).click()
            assert pagina.evaluate(curent) == 3
            assert "toate-diapozitivele" not in pagina.evaluate("document.documentElement.className")
            # un link cu diapozitivul în adresă deschide acolo
            pagina.goto(cale.as_uri() + "#/1/0")
            assert pagina.evaluate(curent) == pozitie
        finally:
            browser.close()
