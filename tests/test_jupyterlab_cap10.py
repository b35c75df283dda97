"""Capitolul 10 în JupyterLab, ca la un cursant: „Run All” pe notebook, apoi, în pagină: nicio
celulă nu se oprește cu o eroare, corectitudinea FlexAttention și tabelul recompilărilor au
tipărit ce trebuie, graficele se văd, exploratorul măștilor are glisoare care schimbă ce arată,
iar exercițiile nescrise spun „Încă n-ai scris soluția”. Are nevoie de Chromium și de playwright
(nu și în CI, unde testul se sare)."""

from jupyterlab_local import capitol_rulat, glisor_dus_la_capat

NUME = "10_flex_attention.ipynb"


def test_capitolul_10_ruleaza_tot_in_jupyterlab(tmp_path):
    with capitol_rulat(tmp_path, NUME, limita_ms=600000) as (pagina, iesiri):
        for fragment in ("SDPA și atenția naivă dau aceeași ieșire", "BlockMask: forma", "FlexAttention compilată = SDPA",
                         "ALiBi cu FlexAttention", "grafuri noi", "liniile cu masca pe blocuri", "fereastra FlexAttention"):
            assert fragment in iesiri, fragment
        assert iesiri.count("Încă n-ai scris soluția") == 3
        assert pagina.evaluate("() => document.querySelectorAll('.jp-OutputArea-output img').length") >= 5

        # Exploratorul: glisorul lungimii, dus la capăt (8 192), schimbă partea din lucru care rămâne.
        inainte, dupa = glisor_dus_la_capat(pagina, "Kernel-ul vizitează")
        assert inainte and dupa and inainte != dupa, (inainte, dupa)
        pagina.screenshot(path=str(tmp_path / "capitolul_10.png"), full_page=False)
