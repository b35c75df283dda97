"""Capitolul 09 în JupyterLab, ca la un cursant: „Run All” pe notebook, apoi, în pagină: nicio
celulă nu se oprește cu o eroare (nici kernel-ul: formele greșite ale pachetului rulează doar în
procese noi), pornirile la rece și programul C++ au tipărit ce trebuie, graficele se văd,
exploratorul formelor are glisoare care schimbă ce arată, iar exercițiile nescrise spun „Încă n-ai
scris soluția”. Are nevoie de Chromium și de playwright (nu și în CI, unde testul se sare)."""

from jupyterlab_local import capitol_rulat, glisor_dus_la_capat

NUME = "09_export_aotinductor.ipynb"


def test_capitolul_09_ruleaza_tot_in_jupyterlab(tmp_path):
    with capitol_rulat(tmp_path, NUME, limita_ms=600000) as (pagina, iesiri):
        for fragment in ("REFUZAT (ramificare după date)", "a refuzat-o: input_handles[0]", "pachet AOTI",
                         "programul C++ a rulat pe", "aot_compile, salvată și încărcată"):
            assert fragment in iesiri, fragment
        assert iesiri.count("Încă n-ai scris soluția") == 3
        assert pagina.evaluate("() => document.querySelectorAll('.jp-OutputArea-output img').length") >= 2
        # Exploratorul: glisorul lotului, dus la capăt (128), face forma să fie refuzată.
        inainte, dupa = glisor_dus_la_capat(pagina, "lot ", asteptare_ms=2500)
        assert "lot 8," in inainte and "primită" in inainte and "lot 128," in dupa and "refuzată" in dupa, (inainte, dupa)
        pagina.screenshot(path=str(tmp_path / "capitolul_09.png"), full_page=False)
