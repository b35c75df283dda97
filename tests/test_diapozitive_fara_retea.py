"""Diapozitivele statice nu cer rețea: nici construirea, nici deschiderea lor. Partea fără browser
verifică HTML-ul, ilustrațiile fixe ale cursului (fiecare apel din fiecare notebook își are desenul
în diapozitive) și diapozitivele cu ieșiri (dintr-un notebook executat, cu exploratorul desenat în
locul widget-ului); partea cu Chromium (sărită unde lipsește, de exemplu în CI) deschide trei
capitole adevărate cu rețeaua tăiată, trece prin fiecare diapozitiv, îl fotografiază, măsoară la
1280×720 că niciun rând de cod nu e tăiat și că niciun diapozitiv nu intră sub bara de navigare,
și verifică navigarea cu tastele."""

import ast
import base64
import io
import json
import re

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from curs_compilare.instructor import diapozitive, pagini
from curs_compilare.instructor.fisa import chromium

# 03 și 10 au cele mai lungi rânduri de cod (până la 171 de caractere) și diapozitive mai înalte decât ecranul.
CAPITOLE = ["00_mediul_si_masurarea.ipynb", "03_fuziunea_kernelurilor.ipynb", "10_flex_attention.ipynb"]


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


def _functii_cu_ilustratii() -> set[str]:
    """Funcțiile pachetului care afișează o imagine dintr-un fișier (`display(Image(filename=…))`),
    găsite în sursa pachetului, nu în lista din `diapozitive`: un apel nou, scris altfel, tot e prins."""
    nume = set()
    for cale in (diapozitive.RADACINA / "curs_compilare").rglob("*.py"):
        text = cale.read_text(encoding="utf-8")
        if "Image(filename" not in text:
            continue
        for functie in ast.walk(ast.parse(text)):
            if isinstance(functie, ast.FunctionDef) and any(
                    isinstance(nod, ast.Call) and getattr(nod.func, "id", getattr(nod.func, "attr", None)) == "Image"
                    and any(k.arg == "filename" for k in nod.keywords) for nod in ast.walk(functie)):
                nume.add(functie.name)
    return nume


def _imagini_din_assets() -> set[bytes]:
    return {c.read_bytes() for c in (diapozitive.RADACINA / "assets").rglob("*.png")}


def test_fiecare_ilustratie_din_notebookuri_ajunge_in_diapozitive():
    functii = _functii_cu_ilustratii()
    assert {"arata_ilustratie", "arata_harta"} <= functii, functii
    apel = re.compile(r"(?<![\w])(?:\w+\.)*(" + "|".join(map(re.escape, sorted(functii))) + r")\(")
    imagini = _imagini_din_assets()
    gasite = 0
    for cale in sorted((diapozitive.RADACINA / "notebooks").glob("*.ipynb")) + sorted(
            (diapozitive.RADACINA / "solutions").glob("*.ipynb")):
        if not apel.search(cale.read_text(encoding="utf-8")):
            continue
        nb = nbformat.read(cale, as_version=4)
        pregatite = {c.get("id"): c for c in diapozitive.pregateste(nb).cells if c.cell_type == "code"}
        for celula in nb.cells:
            if celula.cell_type != "code" or not apel.search(celula.source):
                continue
            apeluri = len(apel.findall(celula.source))
            desene = [base64.b64decode(o["data"]["image/png"]) for o in pregatite[celula.get("id")].outputs
                      if "image/png" in o.get("data", {})]
            assert len(desene) == apeluri, f"{cale.name}: celula „{celula.source[:60]}” n-are ilustrația în diapozitive"
            assert all(d in imagini for d in desene), f"{cale.name}: ilustrația nu e un fișier din assets/"
            gasite += apeluri
    assert gasite >= 3  # 03 (comparația), 04 (ospătarul), 07 (harta diagnozei)


def test_ilustratiile_sunt_in_fisierele_capitolelor_03_si_04(tmp_path):
    for capitol, fisier in (("03_fuziunea_kernelurilor", "comparatie.png"), ("04_cuda_graphs_reduce_overhead", "ospatarul.png")):
        html = diapozitive.construieste(diapozitive.RADACINA / "notebooks" / f"{capitol}.ipynb", tmp_path).read_text(encoding="utf-8")
        date = base64.b64encode((diapozitive.RADACINA / "assets" / "bucataria" / fisier).read_bytes()).decode("ascii")
        assert date in html, f"{capitol}: lipsește {fisier}"


def test_apelurile_de_ilustratii_scrise_altfel():
    comparatie = diapozitive.RADACINA / "assets" / "bucataria" / "comparatie.png"
    harta = diapozitive.RADACINA / "assets" / "diagnoza" / "harta_diagnozei.png"
    assert diapozitive.ilustratii('grafice.arata_ilustratie("comparatie.png");') == [comparatie]
    assert diapozitive.ilustratii("%matplotlib inline\nfrom curs_compilare.grafice import arata_ilustratie\n"
                                  "arata_ilustratie(nume='comparatie.png')\ndiagnoza.arata_harta()") == [comparatie, harta]
    assert diapozitive.ilustratii("grafice.arata_ilustratie(nume)") == []  # numele se știe abia la rulare
    with pytest.raises(FileNotFoundError, match="make ilustratii"):
        diapozitive.ilustratii('grafice.arata_ilustratie("nu_exista.png")')


def _notebook_executat_cu_explorator(dosar):
    """Un notebook mic, executat cu nbclient ca de `make validare`: text, un grafic și un explorator
    al cursului (al cărui grafic ajunge în starea widget-urilor, nu în ieșirile celulei)."""
    from nbclient import NotebookClient

    nb = new_notebook(cells=[
        new_markdown_cell("# 99 · Capitolul de probă\n\ntext"),
        new_code_cell("import matplotlib.pyplot as plt\nfrom curs_compilare.explorator import Control, exploreaza\n"
                      "print('salut din kernel')"),
        new_code_cell("def deseneaza(n):\n    plt.plot(range(n))\n    plt.title(f'n = {n}')\n    plt.show()\n\n"
                      "exploreaza(deseneaza, n=Control('puncte', [2, 3, 5], implicit=3));"),
    ])
    nb.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python", "name": "python3"}
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(dosar)}}).execute()
    return nb


def test_diapozitivele_cu_iesirile_unui_notebook_executat(tmp_path, monkeypatch):
    """`--din DOSAR` (așezarea unei validări: `executate/` și `rezultate.json`) face diapozitivele cu
    ieșirile, cu mașina pe primul diapozitiv; exploratorul apare ca graficul lui, fără widget și fără
    scriptul de widget-uri din rețea. Așa se vor face și din referința H200, când va avea notebook-urile
    executate."""
    validare = tmp_path / "validare"
    (validare / "executate").mkdir(parents=True)
    monkeypatch.delenv("CURS_FARA_WIDGETURI", raising=False)
    nb = _notebook_executat_cu_explorator(tmp_path)
    assert "widgets" in nb.metadata  # nbclient a salvat starea widget-urilor
    nbformat.write(nb, validare / "executate" / "99_proba.ipynb")
    nbformat.write(nb, validare / "executate" / "99_proba_solutii.ipynb")  # soluțiile nu au diapozitive
    (validare / "rezultate.json").write_text(json.dumps(
        {"data": "2026-01-02T03:04:05", "mediu": {"dispozitiv": "cuda", "gpu": "NVIDIA H200", "torch": "2.11.0"}}),
        encoding="utf-8")
    iesire = tmp_path / "diapozitive"
    assert diapozitive.main(["--din", str(validare), "--iesire", str(iesire)]) == 0
    assert [c.name for c in iesire.iterdir()] == ["99_proba.slides.html"]
    html = (iesire / "99_proba.slides.html").read_text(encoding="utf-8")
    assert pagini.resurse_din_retea(html) == [] and "unpkg" not in html and "widget-view+json" not in html
    assert "salut din kernel" in html  # ieșirile rămân
    assert "NVIDIA H200 (torch 2.11.0)" in html and "nu ale mașinii tale" in html
    assert "Exploratorul interactiv, la valorile de pornire (puncte: 3)" in html
    assert html.count("data:image/png;base64") >= 1 and "VBox(children" not in html


def test_din_fara_notebookuri_executate_spune_de_ce(tmp_path, capsys):
    with pytest.raises(SystemExit):
        diapozitive.main(["--din", str(tmp_path), "--iesire", str(tmp_path / "iesire")])
    mesaj = capsys.readouterr().err
    assert "executate" in mesaj and "make validare" in mesaj and "referinta_h200" in mesaj


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


#: Pentru diapozitivul curent: ce iese la dreapta (cod, text tipărit) și cum stă față de bara de jos.
_MASURA = """() => {
  const s = document.querySelector('section.diapozitiv.prezent');
  const r = s.getBoundingClientRect();
  const bara = document.querySelector('.bara-prezentare').getBoundingClientRect();
  const taiate = [...s.querySelectorAll('pre, .jp-InputArea-editor, .jp-OutputArea-output')]
    .filter(e => e.offsetParent !== null)
    .map(e => [e, e.getBoundingClientRect()])
    .filter(([e, b]) => e.scrollWidth > e.clientWidth + 1 || b.right > r.right + 0.5 || b.right > innerWidth)
    .map(([e, b]) => (e.innerText || '').split('\\n')[0].slice(0, 60));
  const stil = getComputedStyle(s);
  return {jos: r.bottom, bara: bara.top, taiate: taiate, inaltime: s.scrollHeight, vizibil: s.clientHeight,
          derulare: stil.overflowY,
          continuare: getComputedStyle(document.querySelector('.bara-prezentare .continuare')).display !== 'none'};
}"""


def test_codul_incape_si_diapozitivele_nu_intra_sub_bara(pachete):
    """La 1280×720: niciun rând de cod sau de text tipărit nu e tăiat la dreapta (se rupe pe rânduri),
    fiecare diapozitiv se oprește deasupra barei de navigare, iar unul mai înalt decât spațiul lui se
    derulează în el, cu „continuă dedesubt” în bară până ajungi la capăt."""
    _cere_browserul()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium(), args=["--no-sandbox"])
        try:
            pagina = browser.new_page(viewport={"width": 1280, "height": 720})
            pagina.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file:") else r.abort())
            inalte = 0
            for cale in pachete:
                pagina.goto(cale.as_uri())
                pagina.wait_for_load_state("load")
                for i in range(pagina.evaluate("window.prezentare.numar")):
                    pagina.evaluate(f"window.prezentare.arata({i})")
                    m = pagina.evaluate(_MASURA)
                    unde = f"{cale.name}, diapozitivul {i + 1}"
                    assert not m["taiate"], f"{unde}: cod tăiat la dreapta: {m['taiate']}"
                    assert m["jos"] <= m["bara"] + 0.5, f"{unde}: intră sub bara de navigare ({m})"
                    if m["inaltime"] > m["vizibil"] + 2:
                        inalte += 1
                        assert m["derulare"] in ("auto", "scroll") and m["continuare"], f"{unde}: {m}"
                        pagina.evaluate("(() => { const s = document.querySelector('section.diapozitiv.prezent');"
                                        " s.scrollTop = s.scrollHeight; s.dispatchEvent(new Event('scroll')); })()")
                        dupa = pagina.evaluate(_MASURA)
                        assert not dupa["continuare"], f"{unde}: „continuă dedesubt” rămâne la capăt"
                        # derulat până la capăt, ultimul rând de conținut ajunge în spațiul de deasupra barei
                        capat = pagina.evaluate("(() => { const s = document.querySelector('section.diapozitiv.prezent');"
                                                " return s.scrollHeight - s.scrollTop - s.clientHeight; })()")
                        assert capat <= 1, f"{unde}: capătul diapozitivului nu se poate derula deasupra barei"
                    else:
                        assert not m["continuare"], f"{unde}: „continuă dedesubt” pe un diapozitiv care încape"
            assert inalte > 0  # măcar un diapozitiv mai înalt decât ecranul (03 și 10 au)
        finally:
            browser.close()


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
