"""Prezentarea live cu RISE în JupyterLab, pe un capitol adevărat, fără rețea, pe drumul din ghid:
`diapozitive --rise --lab` pregătește copia capitolului și pornește JupyterLab doar pe dosarul
copiilor; acolo capitolul rulează tot, apoi prezentarea RISE pornește în același kernel. În ea, o
celulă rulează și diapozitivul următor apare, iar exploratorul capitolului (ipywidgets) se vede și
răspunde. *Alt+R* salvează notebook-ul prezentat (jupyterlab-rise 0.43 cheamă `context.save()`,
chiar cu salvarea automată oprită): pe drumul din ghid salvează doar copia, iar capitolele cursului
rămân neatinse, octet cu octet. Un capitol deschis direct, fără diapozitive, are lângă el avizul
(`rise.css`), pe care prezentarea îl arată. Partea cu browserul are nevoie de Chromium și de pachetul
playwright (nu și în CI, unde testele se sar)."""

import hashlib
import json
import shutil
import urllib.request

import nbformat
import pytest

from curs_compilare.instructor import diapozitive
from curs_compilare.instructor.fisa import chromium
from jupyterlab_local import JETON, jupyterlab

CAPITOL = "00_mediul_si_masurarea.ipynb"
ARGUMENTE_CHROMIUM = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
                      "--disable-component-update", "--no-first-run"]
DIAPOZITIV_CURENT = "[...document.querySelectorAll('.reveal section.present')].pop()"
#: Toate celulele de cod au rulat (niciun „[*]”) și măcar una are număr.
RULAT_TOT = ("() => document.querySelectorAll('.jp-InputPrompt').length > 3 && "
             "![...document.querySelectorAll('.jp-InputPrompt')].some(e => e.textContent.includes('*'))"
             " && [...document.querySelectorAll('.jp-InputPrompt')].some(e => /\\[\\d+\\]/.test(e.textContent))")


def _cere_browserul():
    pytest.importorskip("jupyterlab_rise")
    pytest.importorskip("playwright")
    if chromium() is None:
        pytest.skip("fără Chromium pe mașină")


def _amprenta_capitolului() -> str:
    """Amprenta capitolului prezentat, din `notebooks/` (conftest.py le verifică la final pe toate)."""
    return hashlib.sha256((diapozitive.RADACINA / "notebooks" / CAPITOL).read_bytes()).hexdigest()


def _fara_salvare_automata(dosar):
    """Setările unui JupyterLab cu salvarea automată oprită (ca la recenzent) și fără ferestre virtuale."""
    for extensie, fisier, continut in (
        ("docmanager-extension", "plugin", {"autosave": False}),
        ("notebook-extension", "tracker", {"windowingMode": "none"}),
    ):
        cale = dosar / "@jupyterlab" / extensie
        cale.mkdir(parents=True, exist_ok=True)
        (cale / f"{fisier}.jupyterlab-settings").write_text(json.dumps(continut), encoding="utf-8")
    return dosar


def _doar_local(context, adresa) -> list:
    """Fără rețea: doar serverul local răspunde (reveal.js vine din extensie; fonturile temei și
    insigna Colab, cerute din rețea, lipsesc fără să strice nimic). Întoarce lista cererilor oprite."""
    cerute_din_retea = []

    def ruta(r):
        if r.request.url.startswith((adresa, "data:", "blob:")):
            r.continue_()
        else:
            cerute_din_retea.append(r.request.url)
            r.abort()

    context.route("**/*", ruta)
    return cerute_din_retea


def _apasa_alt_r(lab):
    """Alt+R pe notebook-ul deschis în pagină (în modul comandă) și așteaptă prezentarea din dreapta."""
    lab.click(".jp-Notebook .jp-Cell .jp-InputPrompt >> nth=0")
    lab.keyboard.press("Escape")
    lab.keyboard.press("Alt+r")
    cadru = lab.wait_for_selector("iframe[src*='/rise/']", timeout=60000)
    rise = cadru.content_frame()
    rise.wait_for_selector(".reveal section.present", timeout=90000)
    lab.wait_for_timeout(1500)
    return rise


@pytest.fixture(scope="module")
def browser():
    """Chromium, pornit o dată pentru toate testele modulului (playwright nu poate porni de două ori
    în același fir)."""
    _cere_browserul()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium(), args=ARGUMENTE_CHROMIUM)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture(scope="module")
def sala(browser, tmp_path_factory):
    """Drumul din ghid: copia capitolului 00 pregătită de `diapozitive --rise`, JupyterLab pornit cu
    opțiunile lui `--lab` (rădăcina e dosarul copiilor), cu salvarea automată oprită, Chromium fără
    rețea și capitolul rulat tot în JupyterLab (*Run → Run All Cells*). Dă un dicționar cu adresa,
    contextul browserului, pagina JupyterLab, copia, amprenta capitolului și dosarul capturilor."""
    baza = tmp_path_factory.mktemp("rise")
    copii = baza / "copii"
    (copie,) = diapozitive.pregateste_pentru_rise([diapozitive.RADACINA / "notebooks" / CAPITOL], copii)
    argumente = diapozitive.argumente_jupyterlab_rise(copii, copie.name)
    assert argumente[0] == f"--ServerApp.root_dir={copii.resolve()}"  # JupyterLab vede doar copiile
    amprenta = _amprenta_capitolului()
    with jupyterlab(copii, *argumente[1:], f"--LabApp.user_settings_dir={_fara_salvare_automata(baza / 'setari')}",
                    f"--LabApp.workspaces_dir={baza / 'spatii'}") as adresa:
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        try:
            cerute_din_retea = _doar_local(context, adresa)
            lab = context.new_page()
            lab.goto(f"{adresa}/?token={JETON}")  # pagina de pornire a lui --lab: copia
            lab.wait_for_selector(".jp-Notebook .jp-Cell", timeout=90000)
            lab.wait_for_timeout(2000)
            lab.click("text=Run", timeout=20000)
            lab.click("text=Run All Cells", timeout=20000)
            lab.wait_for_function(RULAT_TOT, timeout=240000)
            yield {"adresa": adresa, "context": context, "lab": lab, "copie": copie, "amprenta": amprenta,
                   "capturi": baza, "retea": cerute_din_retea}
        finally:
            context.close()


def _prezentarea(sala, index_celula: int = 0):
    """O pagină nouă cu prezentarea RISE a copiei, pornită la diapozitivul celulei `index_celula`."""
    rise = sala["context"].new_page()
    erori = []
    rise.on("console", lambda m: erori.append(m.text) if m.type in ("error", "warning") else None)
    rise.goto(f"{sala['adresa']}/rise/{sala['copie'].name}?token={JETON}&activeCellIndex={index_celula}")
    rise.wait_for_selector(".reveal section.present", timeout=90000)
    rise.wait_for_timeout(1500)
    return rise, erori


def test_prezentarea_rise_ruleaza_o_celula_si_trece_mai_departe(sala):
    rise, _ = _prezentarea(sala)
    assert "00 · Mediul de lucru" in rise.evaluate(f"{DIAPOZITIV_CURENT}.innerText")
    for _ in range(15):  # până la diapozitivul celulei care spune dispozitivul
        if "print(\"Dispozitivul experimentelor" in rise.evaluate(f"{DIAPOZITIV_CURENT}.innerText"):
            break
        rise.keyboard.press("Space")
        rise.wait_for_timeout(600)
    else:
        pytest.fail("n-am ajuns la diapozitivul celulei cu dispozitivul")
    # Celula rulează în prezentare, iar Shift+Enter trece la diapozitivul următor
    rise.evaluate_handle(f"{DIAPOZITIV_CURENT}.querySelector('.jp-CodeCell .jp-InputArea-editor')").as_element().click()
    rise.keyboard.press("Shift+Enter")
    rise.wait_for_function(
        "() => [...document.querySelectorAll('.jp-OutputArea-output')]"
        ".some(e => e.innerText.includes('Dispozitivul experimentelor:'))", timeout=60000)
    rise.wait_for_timeout(1000)
    assert "2. De ce minte un cronometru naiv pe GPU" in rise.evaluate(f"{DIAPOZITIV_CURENT}.innerText")
    assert not [u for u in sala["retea"] if u.endswith((".js", ".mjs"))]  # niciun script din rețea
    rise.close()


def test_exploratorul_se_vede_si_raspunde_in_diapozitiv(sala):
    """Exploratorul capitolului 00 (un glisor, o listă și graficul lor) apare în diapozitiv, nu ca
    text `VBox(children=…)`, iar o altă operație aleasă în listă redesenează graficul. Cu
    jupyterlab_widgets 3.0.11 sau mai nou, extensia widget-urilor nu se încarcă în RISE („Shared
    module @jupyterlab/console doesn't exist in shared scope default”): requirements.txt o fixează."""
    nb = nbformat.read(sala["copie"], as_version=4)
    (index,) = [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and "exploreaza(" in c.source]
    rise, erori = _prezentarea(sala, index)
    assert "exploreaza(" in rise.evaluate(f"{DIAPOZITIV_CURENT}.innerText")
    rise.evaluate_handle(f"{DIAPOZITIV_CURENT}.querySelector('.jp-CodeCell .jp-InputArea-editor')").as_element().click()
    rise.keyboard.press("Control+Enter")  # rulează celula și rămâne pe diapozitiv
    rise.wait_for_function(
        f"() => {DIAPOZITIV_CURENT}.querySelector('.widget-slider') && {DIAPOZITIV_CURENT}.querySelector('.widget-dropdown')"
        f" && {DIAPOZITIV_CURENT}.querySelector('.jp-OutputArea-output img')", timeout=90000)
    rise.wait_for_timeout(1000)
    assert "VBox(children" not in rise.evaluate(f"{DIAPOZITIV_CURENT}.innerText")
    imagine = f"{DIAPOZITIV_CURENT}.querySelector('.widget-output img, .jp-OutputArea-output img').src"
    inainte = rise.evaluate(imagine)
    lista = rise.evaluate_handle(f"{DIAPOZITIV_CURENT}.querySelector('.widget-dropdown select')").as_element()
    optiuni = lista.evaluate("s => [...s.options].map(o => o.value)")
    lista.select_option(optiuni[-1])
    rise.wait_for_function(f"(vechi) => {imagine} !== vechi", arg=inainte, timeout=60000)
    rise.screenshot(path=str(sala["capturi"] / "rise_explorator.png"))
    assert not [e for e in erori if "Failed to create module" in e or "shared scope" in e], erori
    rise.close()


def test_alt_r_salveaza_doar_copia(sala):
    """Alt+R salvează notebook-ul pe care îl prezintă, deși salvarea automată e oprită. Pe drumul
    din ghid, JupyterLab vede doar dosarul copiilor: capitolele cursului nu pot fi salvate de acolo
    și rămân neatinse. Copia n-are avizul capitolelor deschise direct."""
    rise = _apasa_alt_r(sala["lab"])
    assert rise.evaluate("document.querySelectorAll('.reveal .slides > section').length") > 5  # copia are diapozitive
    assert rise.evaluate("getComputedStyle(document.body, '::before').content") in ("none", "normal", "")
    cerere = urllib.request.urlopen(f"{sala['adresa']}/api/contents?token={JETON}", timeout=10)
    vazute = {f["name"] for f in json.loads(cerere.read())["content"]}
    assert vazute == {sala["copie"].name}, vazute
    assert _amprenta_capitolului() == sala["amprenta"], "prezentarea a modificat capitolul din notebooks/"


def test_capitolul_deschis_direct_spune_in_prezentare_ce_sa_faci(browser, tmp_path):
    """Drumul pe care l-ar încerca un cursant: capitolul deschis direct, Alt+R. Capitolul n-are
    metadate de diapozitive, deci RISE îl arată ca un singur diapozitiv lung; avizul scris lângă el
    (`--aviz-rise`, `rise.css`) spune asta, sus, și dă comanda bună."""
    direct = tmp_path / "capitole"
    direct.mkdir()
    shutil.copy(diapozitive.RADACINA / "notebooks" / CAPITOL, direct / CAPITOL)
    diapozitive.scrie_avizul_rise(direct)
    with jupyterlab(direct, f"--LabApp.user_settings_dir={_fara_salvare_automata(tmp_path / 'setari')}",
                    f"--LabApp.workspaces_dir={tmp_path / 'spatii'}") as adresa:
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        try:
            _doar_local(context, adresa)
            lab = context.new_page()
            lab.goto(f"{adresa}/lab/tree/{CAPITOL}?token={JETON}")
            lab.wait_for_selector(".jp-Notebook .jp-Cell", timeout=90000)
            lab.wait_for_timeout(2000)
            rise = _apasa_alt_r(lab)
            rise.wait_for_function("() => getComputedStyle(document.body, '::before').content.includes('--rise --lab')",
                                   timeout=30000)
            aviz = rise.evaluate("getComputedStyle(document.body, '::before')")
            assert aviz["position"] == "fixed" and aviz["display"] != "none"
            assert rise.evaluate("document.querySelectorAll('.reveal .slides > section').length") == 1
            lab.screenshot(path=str(tmp_path / "rise_capitol_direct.png"))
        finally:
            context.close()


def test_notebookul_pentru_rise_are_diapozitive_si_originalul_ramane(tmp_path):
    original = diapozitive.RADACINA / "notebooks" / CAPITOL
    inainte = original.read_bytes()
    (cale,) = diapozitive.pregateste_pentru_rise([original], tmp_path)
    nb = nbformat.read(cale, as_version=4)
    tipuri = [c.metadata.get("slideshow", {}).get("slide_type") for c in nb.cells]
    assert tipuri.count("slide") >= 5 and "subslide" in tipuri
    assert tipuri[[i for i, c in enumerate(nb.cells) if c.cell_type == "code"][0]] == "skip"  # pregătirea, ascunsă
    assert nb.metadata["rise"]["scroll"] is True  # un diapozitiv înalt se derulează, nu se taie
    assert original.read_bytes() == inainte
    assert not (tmp_path / "rise.css").exists()  # avizul capitolelor deschise direct nu ajunge la copii


def test_comanda_rise_porneste_jupyterlab_doar_pe_copii(tmp_path, monkeypatch):
    """`--rise --lab` scrie copiile și pornește JupyterLab cu rădăcina în dosarul lor."""
    pornit = {}

    class Proces:
        def __init__(self, comanda, env):
            pornit.update(comanda=comanda, env=env)

        def wait(self):
            return 0

    monkeypatch.setattr(diapozitive.subprocess, "Popen", Proces)
    capitol = diapozitive.RADACINA / "notebooks" / CAPITOL
    assert diapozitive.main(["--rise", "--lab", "--iesire", str(tmp_path), "--lab-argumente=--no-browser",
                             str(capitol)]) == 0
    comanda = pornit["comanda"]
    assert comanda[1:4] == ["-m", "jupyter", "lab"] and comanda[-1] == "--no-browser"
    assert f"--ServerApp.root_dir={(tmp_path / 'rise').resolve()}" in comanda
    assert f"--LabApp.default_url=/lab/tree/{CAPITOL}" in comanda
    assert (tmp_path / "rise" / CAPITOL).is_file() and pornit["env"]["CURS_RADACINA"] == str(diapozitive.RADACINA)
    with pytest.raises(SystemExit):
        diapozitive.main(["--lab"])  # --lab fără --rise


def test_avizul_rise_sta_langa_capitole_si_solutii():
    """Un capitol deschis direct și prezentat cu RISE primește avizul: `rise.css` din dosarul lui e
    exact cel scris de `diapozitive --aviz-rise` (refă-l cu comanda, dacă textul se schimbă)."""
    for dosar in ("notebooks", "solutions"):
        cale = diapozitive.RADACINA / dosar / "rise.css"
        assert cale.is_file(), f"lipsește {dosar}/rise.css: python -m curs_compilare.instructor.diapozitive --aviz-rise {dosar}"
        assert cale.read_text(encoding="utf-8") == diapozitive.AVIZ_RISE_CSS
