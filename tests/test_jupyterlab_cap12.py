"""Capitolul 12 în JupyterLab, ca la un cursant: „Run All” pe notebook, apoi, în pagină: nicio celulă nu se
oprește cu o eroare, inventarul activărilor, comparația eager–compilat, bugetele și întrebarea practică au
tipărit ce trebuie, graficele se văd, exploratorul plafonului schimbă ce arată când alegi alt lot, iar
exercițiile nescrise spun „Încă n-ai scris soluția”. Are nevoie de Chromium și de playwright (nu și în CI,
unde testul se sare)."""

from jupyterlab_local import capitol_rulat, glisor_dus_la_capat

NUME = "12_memoria_sub_compilare.ipynb"


def test_capitolul_12_ruleaza_tot_in_jupyterlab(tmp_path):
    with capitol_rulat(tmp_path, NUME, limita_ms=600000) as (pagina, iesiri):
        for fragment in ("Pasul eager a salvat pentru pasul înapoi", "Eager:", "Compilat:",
                         "Ce recalculează graful înapoi din pasul înainte", "Vârful memoriei", "Memoria pasului:",
                         "Cel mai mare lot care încape"):
            assert fragment in iesiri, fragment
        assert iesiri.count("Încă n-ai scris soluția") == 3
        # cronologia memoriei, diagrama viteză–memorie și graficul exploratorului
        assert pagina.evaluate("() => document.querySelectorAll('.jp-OutputArea-output img').length") >= 3

        # Exploratorul plafonului: alt lot (ultimul glisor), altă memorie a pasului tipărită.
        inainte, dupa = glisor_dus_la_capat(pagina, "Memoria pasului:", ultimul=True)
        assert inainte and dupa and inainte != dupa, (inainte, dupa)
        pagina.screenshot(path=str(tmp_path / "capitolul_12.png"), full_page=False)
