"""Prezentarea live cu RISE în JupyterLab, pe un capitol adevărat, fără rețea: notebook-ul
pregătit de `diapozitive --rise` se deschide în JupyterLab, rulează tot, apoi prezentarea RISE
pornește în același kernel, o celulă rulează în ea și diapozitivul următor apare. Are nevoie de
Chromium și de pachetul playwright (nu și în CI, unde testul se sare)."""


import pytest

from curs_compilare.instructor import diapozitive
from curs_compilare.instructor.fisa import chromium
from jupyterlab_local import JETON, jupyterlab


def _cere_browserul():
    pytest.importorskip("jupyterlab_rise")
    pytest.importorskip("playwright")
    if chromium() is None:
        pytest.skip("fără Chromium pe mașină")

DIAPOZITIV_CURENT = "[...document.querySelectorAll('.reveal section.present')].pop()"


@pytest.fixture
def server_jupyterlab(tmp_path):
    """Un JupyterLab în `tmp_path`, cu capitolul 00 pregătit pentru RISE; dă adresa și jetonul."""
    _cere_browserul()
    (cale,) = diapozitive.pregateste_pentru_rise([diapozitive.RADACINA / "notebooks" / "00_mediul_si_masurarea.ipynb"],
                                                 tmp_path)
    with jupyterlab(tmp_path) as adresa:
        yield adresa, JETON, cale.name


def test_prezentarea_rise_ruleaza_o_celula_si_trece_mai_departe(server_jupyterlab):
    from playwright.sync_api import sync_playwright

    adresa, jeton, nume = server_jupyterlab
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium(), args=["--no-sandbox"])
        try:
            context = browser.new_context(viewport={"width": 1280, "height": 800})
            # fără rețea: doar serverul local răspunde (reveal.js vine din extensie; fonturile temei
            # și insigna Colab, cerute din rețea, lipsesc fără să strice nimic)
            cerute_din_retea = []

            def doar_local(ruta):
                if ruta.request.url.startswith((adresa, "data:", "blob:")):
                    ruta.continue_()
                else:
                    cerute_din_retea.append(ruta.request.url)
                    ruta.abort()

            context.route("**/*", doar_local)
            # 1. În JupyterLab: Run All (și celula de pregătire, ascunsă în prezentare)
            lab = context.new_page()
            lab.goto(f"{adresa}/lab/tree/{nume}?token={jeton}")
            lab.wait_for_selector(".jp-Notebook .jp-Cell", timeout=90000)
            lab.wait_for_timeout(2000)
            lab.click("text=Run", timeout=20000)
            lab.click("text=Run All Cells", timeout=20000)
            lab.wait_for_function(
                "() => document.querySelectorAll('.jp-InputPrompt').length > 3 && "
                "![...document.querySelectorAll('.jp-InputPrompt')].some(e => e.textContent.includes('*'))"
                " && [...document.querySelectorAll('.jp-InputPrompt')].some(e => /\\[\\d+\\]/.test(e.textContent))",
                timeout=240000)
            # 2. Prezentarea RISE, în același kernel
            rise = context.new_page()
            rise.goto(f"{adresa}/rise/{nume}?token={jeton}")
            rise.wait_for_selector(".reveal section.present", timeout=90000)
            rise.wait_for_timeout(1500)
            assert "00 · Mediul de lucru" in rise.evaluate(f"{DIAPOZITIV_CURENT}.innerText")
            for _ in range(15):  # până la diapozitivul celulei care spune dispozitivul
                if "print(\"Dispozitivul experimentelor" in rise.evaluate(f"{DIAPOZITIV_CURENT}.innerText"):
                    break
                rise.keyboard.press("Space")
                rise.wait_for_timeout(600)
            else:
                pytest.fail("n-am ajuns la diapozitivul celulei cu dispozitivul")
            # 3. Celula rulează în prezentare, iar Shift+Enter trece la diapozitivul următor
            rise.evaluate_handle(f"{DIAPOZITIV_CURENT}.querySelector('.jp-CodeCell .jp-InputArea-editor')").as_element().click()
            rise.keyboard.press("Shift+Enter")
            rise.wait_for_function(
                "() => [...document.querySelectorAll('.jp-OutputArea-output')]"
                ".some(e => e.innerText.includes('Dispozitivul experimentelor:'))", timeout=60000)
            rise.wait_for_timeout(1000)
            assert "2. De ce minte un cronometru naiv pe GPU" in rise.evaluate(f"{DIAPOZITIV_CURENT}.innerText")
            assert not [u for u in cerute_din_retea if u.endswith((".js", ".mjs"))]  # niciun script din rețea
        finally:
            browser.close()


def test_notebookul_pentru_rise_are_diapozitive_si_originalul_ramane(tmp_path):
    original = diapozitive.RADACINA / "notebooks" / "00_mediul_si_masurarea.ipynb"
    inainte = original.read_bytes()
    (cale,) = diapozitive.pregateste_pentru_rise([original], tmp_path)
    import nbformat

    nb = nbformat.read(cale, as_version=4)
    tipuri = [c.metadata.get("slideshow", {}).get("slide_type") for c in nb.cells]
    assert tipuri.count("slide") >= 5 and "subslide" in tipuri
    assert tipuri[[i for i, c in enumerate(nb.cells) if c.cell_type == "code"][0]] == "skip"  # pregătirea, ascunsă
    assert original.read_bytes() == inainte
