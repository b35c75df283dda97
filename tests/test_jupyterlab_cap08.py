"""Capitolul 08 în JupyterLab, ca la un cursant: „Run All” pe notebook, apoi, în pagină: ce au
tipărit rangurile apare în notebook („[rangul 0]”, „[rangul 1]”), nicio celulă nu se oprește cu o
eroare, graficele se văd, exploratorul găleților apare o singură dată și are un glisor care
schimbă ce arată, iar exercițiile nescrise spun „Încă n-ai scris soluția”. Funcțiile din celule
ajung în procesele rangurilor din kernel-ul lui JupyterLab (nu doar din nbval). Are nevoie de
Chromium și de playwright (nu și în CI, unde testul se sare)."""

from jupyterlab_local import capitol_rulat

NUME = "08_antrenare_distribuita.ipynb"


def test_capitolul_08_ruleaza_tot_in_jupyterlab(tmp_path):
    with capitol_rulat(tmp_path, NUME, limita_ms=400000) as (pagina, iesiri):
        assert "[rangul 0] sunt rangul 0 din 2" in iesiri and "[rangul 1] sunt rangul 1 din 2" in iesiri
        assert "Sequential: torch.compile(DDP(model))" in iesiri and "requires_grad" in iesiri
        assert iesiri.count("Încă n-ai scris soluția") == 3
        assert pagina.evaluate("() => document.querySelectorAll('.jp-OutputArea-output img').length") >= 3
        # Exploratorul: afișat o singură dată (celula se termină cu apelul, fără `;`), iar
        # glisorul găleții schimbă textul de sub el.
        glisor = pagina.locator(".widget-slider, .jupyter-widgets .slider-container").first
        glisor.wait_for(timeout=30000)
        cu_glisor = pagina.evaluate("() => [...document.querySelectorAll('.jp-OutputArea-output')]"
                                    ".filter(e => e.querySelector('.widget-slider, .slider-container')).length")
        assert cu_glisor == 1, f"exploratorul apare de {cu_glisor} ori"
        inainte = pagina.evaluate("() => [...document.querySelectorAll('.jp-OutputArea-output')].map(e => e.innerText).filter(t => t.includes('bucket_cap_mb=')).join('|')")
        glisor.scroll_into_view_if_needed()
        glisor.click()
        pagina.keyboard.press("End")
        pagina.wait_for_timeout(2500)
        dupa = pagina.evaluate("() => [...document.querySelectorAll('.jp-OutputArea-output')].map(e => e.innerText).filter(t => t.includes('bucket_cap_mb=')).join('|')")
        assert "bucket_cap_mb=1:" in inainte and dupa != inainte and "bucket_cap_mb=25:" in dupa, (inainte, dupa)
        pagina.screenshot(path=str(tmp_path / "capitolul_08.png"), full_page=False)
