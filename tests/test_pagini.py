"""Capitolele executate ca pagini HTML statice: nimic încărcat din rețea, mașina spusă deasupra,
imaginile în fișier; unde există Chromium, pagina se deschide cu rețeaua tăiată."""

import base64
import io
import json

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from curs_compilare.instructor import pagini


def _png() -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figura, axa = plt.subplots(figsize=(2, 1))
    axa.plot([0, 1], [1, 0])
    tampon = io.BytesIO()
    figura.savefig(tampon, format="png")
    plt.close(figura)
    return base64.b64encode(tampon.getvalue()).decode()


def _validare(tmp_path):
    """Un dosar ca al lui `make validare`: un notebook executat și rezultate.json."""
    nb = new_notebook(cells=[
        new_markdown_cell("# 99 · Capitolul de probă\n\n[![Deschide în Colab](https://colab.research.google.com/assets/"
                          "colab-badge.svg)](https://colab.research.google.com/github/x/y/blob/main/n.ipynb)"),
        new_code_cell("print('accelerarea: 1,57×')", outputs=[new_output("stream", name="stdout", text="accelerarea: 1,57×\n")]),
        new_code_cell("grafic()", outputs=[new_output("display_data", data={"image/png": _png(), "text/plain": "<Figure>"})]),
    ])
    (tmp_path / "validare" / "executate").mkdir(parents=True)
    nbformat.write(nb, tmp_path / "validare" / "executate" / "99_proba.ipynb")
    (tmp_path / "validare" / "rezultate.json").write_text(json.dumps({
        "data": "2026-12-05T02:08:00",
        "mediu": {"dispozitiv": "cuda", "gpu": "NVIDIA H200", "torch": "2.11.0+cu130"},
    }))
    return tmp_path / "validare"


def test_pagina_nu_incarca_nimic_din_retea_si_spune_masina(tmp_path):
    scrise = pagini.construieste(_validare(tmp_path), tmp_path / "pagini")
    assert [p.name for p in scrise] == ["99_proba.html"]
    pagina = scrise[0].read_text(encoding="utf-8")
    assert pagini.resurse_din_retea(pagina) == []
    assert "executat pe NVIDIA H200 (torch 2.11.0+cu130), la 2026-12-05T02:08:00" in pagina
    assert "nu ale mașinii tale" in pagina
    assert "accelerarea: 1,57×" in pagina and "data:image/png;base64," in pagina
    assert "Deschide în Colab" in pagina  # insigna devine link text
    cuprins = (tmp_path / "pagini" / "index.html").read_text(encoding="utf-8")
    assert 'href="99_proba.html"' in cuprins and "NVIDIA H200" in cuprins


def test_fara_retea_scoate_scripturile_stilurile_si_imaginile_din_retea():
    pagina = (
        '<head><script src="https://cdn.example/require.min.js"></script>'
        '<script type="text/x-mathjax-config">MathJax.Hub.Config({});</script>'
        '<link rel="stylesheet" href="https://cdn.example/x.css"><style>p {}</style></head>'
        '<body><a href="https://colab.example/n"><img src="https://colab.example/badge.svg" alt="Deschide în Colab"></a>'
        '<img src="data:image/png;base64,AAAA"><script type="module">1</script>'
        '<script type="module">const m = (await import("https://cdn.example/mermaid.mjs")).default;</script></body>'
    )
    assert len(pagini.resurse_din_retea(pagina)) == 4
    curata = pagini.fara_retea(pagina)
    assert pagini.resurse_din_retea(curata) == []
    assert '<a href="https://colab.example/n">Deschide în Colab</a>' in curata  # linkurile rămân
    assert "data:image/png;base64,AAAA" in curata and "<style>p {}</style>" in curata
    assert "MathJax" not in curata and "mermaid" not in curata
    assert '<script type="module">1</script>' in curata  # un script fără rețea rămâne


@pytest.mark.parametrize("script", [
    "<script type=\"module\">\n  import mermaid from 'https://cdn.example/mermaid.esm.min.mjs';\n  mermaid.initialize({});\n</script>",
    "<script type=\"module\">import 'https://cdn.example/efect.js';</script>",
    "<script type=\"module\">import { a, b } from \"https://cdn.example/m.js\"; a(b);</script>",
])
def test_importurile_statice_din_retea_sunt_gasite_si_scoase(script):
    """Șablonul reveal al lui nbconvert importă mermaid cu `import mermaid from 'https://…'`,
    nu cu `import(…)`: și forma aceasta e o cerere în rețea la deschiderea paginii."""
    pagina = f"<head>{script}<title>t</title></head><body><p>import numpy from sursă</p></body>"
    assert len(pagini.resurse_din_retea(pagina)) == 1
    curata = pagini.fara_retea(pagina)
    assert pagini.resurse_din_retea(curata) == [] and "cdn.example" not in curata
    assert "<p>import numpy from sursă</p>" in curata  # textul paginii rămâne


def test_masina_descrisa_din_rezultate():
    assert pagini.descriere_masina({"dispozitiv": "cpu", "torch": "2.14"}) == "un procesor fără GPU (torch 2.14)"
    assert pagini.descriere_masina({"dispozitiv": "cuda", "gpu": "Tesla T4 (simulat)", "gpu_real": "NVIDIA H200",
                                    "gpu_simulat": "T4", "torch": "2.11"}) == "NVIDIA H200, în profilul T4 simulat (torch 2.11)"
    assert pagini.descriere_masina(None) == "o mașină necunoscută"


def test_fara_validare_eroarea_spune_ce_sa_rulezi(tmp_path, capsys):
    assert pagini.main(["--din", str(tmp_path / "lipsa"), "--iesire", str(tmp_path / "p")]) == 2
    assert "make validare" in capsys.readouterr().err


def test_pagina_se_deschide_fara_retea_in_chromium(tmp_path):
    """Cu Chromium și playwright (nu și în CI): browserul, cu rețeaua tăiată, nu cere nimic din
    rețea, iar textul și imaginea pagina le are."""
    pytest.importorskip("playwright")
    from curs_compilare.instructor.fisa import chromium

    if chromium() is None:
        pytest.skip("fără Chromium pe mașină")
    from playwright.sync_api import sync_playwright

    pagina = pagini.construieste(_validare(tmp_path), tmp_path / "pagini")[0]
    cerute = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium(), args=["--no-sandbox"])
        try:
            context = browser.new_context(offline=True)
            tab = context.new_page()
            tab.on("request", lambda r: cerute.append(r.url) if not r.url.startswith(("file:", "data:")) else None)
            tab.goto(pagina.as_uri())
            tab.wait_for_timeout(300)
            text = tab.inner_text("body")
            imagini = tab.evaluate("Array.from(document.images).map(i => i.complete && i.naturalWidth > 0)")
        finally:
            browser.close()
    assert cerute == []
    assert "Capitolul de probă" in text and "accelerarea: 1,57×" in text
    assert imagini and all(imagini)
