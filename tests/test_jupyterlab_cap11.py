"""Capitolul 11 în JupyterLab, ca la un cursant: „Run All” pe notebook, apoi, în pagină: nicio celulă nu se
oprește cu o eroare, antrenarea, recompilările, compilarea o singură dată, plafonul și int8 au tipărit ce
trebuie, graficele se văd, exploratorul plafonului are glisoare care schimbă ce arată, iar exercițiile
nescrise spun „Încă n-ai scris soluția”. Are nevoie de Chromium și de playwright (nu și în CI, unde testul se
sare)."""

from jupyterlab_local import capitol_rulat, glisor_dus_la_capat

NUME = "11_generarea_textului.ipynb"


def test_capitolul_11_ruleaza_tot_in_jupyterlab(tmp_path):
    with capitol_rulat(tmp_path, NUME, limita_ms=600000) as (pagina, iesiri):
        for fragment in ("Sarcina: ciclul ascuns", "aceleași jetoane ca bucla naivă", "grafuri compilate",
                         "atenția cu cache-ul static = atenția pe prefix", "Decodarea s-a compilat o singură dată",
                         "Plafonul de copiere", "din plafon", "citește int8 și face suma produsului",
                         "aceeași predicție de top"):
            assert fragment in iesiri, fragment
        assert iesiri.count("Încă n-ai scris soluția") == 3
        assert pagina.evaluate("() => document.querySelectorAll('.jp-OutputArea-output img').length") >= 6

        # Exploratorul: primul glisor (octeții pe greutate), dus la capăt (int8), schimbă octeții unui pas tipăriți.
        inainte, dupa = glisor_dus_la_capat(pagina, "Un pas citește")
        assert inainte and dupa and inainte != dupa, (inainte, dupa)
        pagina.screenshot(path=str(tmp_path / "capitolul_11.png"), full_page=False)
