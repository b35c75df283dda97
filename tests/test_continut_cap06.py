"""Capitolul 06 (modelul întreg): structura notebook-ului și lucrurile care ar putea reveni
(toate cele cinci moduri, exploratorul, exercițiile cu interfața fixată, capcana grafurilor CUDA
la antrenare, max-autotune doar la cerere pe GPU, scriptul care folosește același cod)."""

import re

import nbformat

from curs_compilare.capitole import cap06_modelul_intreg as antrenare

from text_notebook import APELARE, FORMAT_INTERZIS, NOI, RADACINA, markdown, siruri_din_cod
from text_notebook import surse as _celule

CAPITOL = RADACINA / "notebooks" / "06_modelul_intreg.ipynb"
CAPITOL_05 = RADACINA / "notebooks" / "05_reglare_automata_max_autotune.ipynb"
SCRIPT = RADACINA / "benchmarks" / "capitolul06.py"
MODUL = RADACINA / "curs_compilare" / "capitole" / "cap06_modelul_intreg.py"


def _cod() -> str:
    return "\n".join(_celule(CAPITOL, "code"))


def _cod_si_modul() -> str:
    """Codul notebook-ului și sursa modulului capitolului, unde stau tabelele, graficele și cifrele
    pentru raport."""
    return _cod() + "\n" + MODUL.read_text(encoding="utf-8")


def test_structura_ca_in_capitolele_anterioare():
    cod = _celule(CAPITOL, "code")
    text = markdown(CAPITOL)
    assert cod[0] == _celule(CAPITOL_05, "code")[0], "celula de pregătire trebuie să fie identică"
    assert "colab-badge.svg" in text and "notebooks/06_modelul_intreg.ipynb" in text
    assert "**Ce vei face:**" in text and "## Ce ai învățat" in text
    for numar in range(1, 7):
        assert re.search(rf"^## {numar}\. ", text, re.MULTILINE), f"lipsește secțiunea {numar}"


def test_fara_iesiri_in_notebook():
    nb = nbformat.read(CAPITOL, as_version=4)
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code")


def test_toate_cele_cinci_moduri_apar():
    text = markdown(CAPITOL)
    for mod in ("eager", "default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs"):
        assert f"`{mod}`" in text, mod


def test_max_autotune_doar_la_cerere_pe_gpu_cu_referinta():
    cod = _cod()
    assert 'os.environ.get("CURS_MAX_AUTOTUNE") == "1"' in cod
    assert "moduri_pentru_mediu(max_autotune=MASOARA_MAX_AUTOTUNE)" in cod
    assert 'afiseaza_referinta("06.moduri_antrenare_max")' in _cod_si_modul()
    assert "--max-autotune" in markdown(CAPITOL)


def test_exploratorul_si_graficul_modurilor():
    cod = _cod()
    assert "exploreaza(" in cod and "Control(" in cod
    assert "grafic_moduri(comparatii)" in cod
    assert "plt.show()" not in cod


def test_exercitiile_cu_interfata_fixata():
    cod = _celule(CAPITOL, "code")
    assert any("from curs_compilare.exercitii import cap06 as verificari" in c for c in cod)
    for numar, functie in ((1, "pregateste_optimizarea(model, pasi_totali)"), (2, "alege_modul(masuratori, cereri, latenta_max_ms, memorie_max_mib)"),
                           (3, "compileaza_regional(model)")):
        celula = next(c for c in cod if f"verificari.exercitiul_{numar}(" in c and "raise NotImplementedError" in c)
        assert f"def {functie}:" in celula
    text = markdown(CAPITOL)
    for numar in (1, 2, 3):
        assert f"## Exercițiul {numar} — " in text


def test_antrenarea_compilata_si_capcanele_ei():
    cod = _cod()
    sursa_modul = MODUL.read_text(encoding="utf-8")
    assert "lr=torch.tensor(rata)" in sursa_modul  # rata într-un tensor
    assert "cudagraph_mark_step_begin()" in sursa_modul and "zero_grad(set_to_none=True)" in sursa_modul
    assert "chei_fara_prefix" in cod and PREFIX_IN_TEXT in markdown(CAPITOL)
    assert "cache_gol()" in cod and "incalzeste_compilatorul()" in cod
    assert "torch.testing.assert_close" in cod
    assert "GradScaler" in cod


PREFIX_IN_TEXT = "_orig_mod."


def test_compilarea_regionala_cache_si_set_stance():
    cod = _cod()
    assert "compilare_regionala(" in cod
    assert "save_cache_artifacts" in markdown(CAPITOL) and "primul_apel_in_proces_nou" in cod
    assert 'set_stance("fail_on_recompile")' in cod and 'set_stance("eager_on_recompile")' in cod


def test_servirea_cu_galeti_si_grafuri_numarate():
    cod = _cod()
    assert "galeti=True" in cod or "galeti=cu_galeti" in cod
    assert "dynamic=True" in cod and "numara_grafuri()" in cod
    assert '"reduce-overhead, găleți"' in cod


def test_concluziile_din_cifre_si_formatul_numerelor():
    cod = _cod()
    assert cod.count("concluzie_accelerare(") >= 4
    for sir in siruri_din_cod(CAPITOL):
        assert not FORMAT_INTERZIS.search(sir), sir


def test_limba():
    text = markdown(CAPITOL) + "\n".join(siruri_din_cod(CAPITOL))
    assert not APELARE.search(text), APELARE.search(text)
    assert not NOI.search(text), NOI.search(text)
    assert " vs " not in text and "vs." not in text
    for sedila in ("\u015f", "\u015e", "\u0163", "\u0162"):
        assert sedila not in text


def test_scriptul_foloseste_acelasi_cod_si_tintele():
    sursa = SCRIPT.read_text(encoding="utf-8")
    assert "from curs_compilare.capitole.cap06_modelul_intreg import" in sursa
    for tinta in ("≥ 1,5×", "≥ 2×", "≥ 3×", "≤ 5%", "≤ 25%"):
        assert tinta in sursa
    assert "--max-autotune" in sursa


def test_revizie_afirmatii_corectate():
    """Afirmații corectate la revizie, care nu trebuie să revină: fereastra mediilor e o zecime
    din pași (nu zece pași), TF32 nu e implicit pentru produsele de matrice în float32, o rată
    float nu recompilează la fiecare pas în versiunile recente, amortizarea pe acest model cere
    mii de pași, max_memory_allocated poate să nu vadă pool-ul grafurilor CUDA."""
    text = markdown(CAPITOL)
    assert "medii de câte zece pași" not in text
    assert "cum rulează float32 pe un GPU modern" not in text and "PyTorch nu-l pornește implicit" in text
    assert "o recompilare (capitolul 02) la fiecare pas" not in text
    assert "câțiva sau câteva sute de pași" not in text
    assert "memory_snapshot" in text and "grupul de memorie" in text
    assert "una lângă alta" not in text and "fiecare din ei" not in text
    assert "recompilări fără găleți" not in _cod()
    modul = MODUL.read_text(encoding="utf-8")
    assert "ar recompila la fiecare pas" not in modul


CACHE = RADACINA / "curs_compilare" / "capitole" / "cap05_cache.py"
VERIFICARI = RADACINA / "curs_compilare" / "exercitii" / "cap06.py"


def test_referinta_eager_e_forma_ei_cea_mai_buna():
    """Eager primește AdamW cu fused=True și rata float (nu rata în tensor, cu care PyTorch renunță în
    tăcere la foreach); compilatul ține rata în tensor, iar Dynamo rulează pasul în modul capturable."""
    text, cod = markdown(CAPITOL), _cod()
    assert "`fused=True`" in text and "`capturable=True`" in text and "capturable=False" in text
    assert "optimizare_eager(model_eager, RATA)" in cod and "optimizare_eager(model_nou, RATA)" in cod
    assert "compilat=False" not in cod
    assert "varianta_adamw" in cod and "06.pas_adamw_eager_" in _cod_si_modul()
    assert "pune_rata(optimizator" in cod and '["lr"].fill_(RATA / 10)' not in cod
    script = SCRIPT.read_text(encoding="utf-8")
    assert "optimizare_eager(" in script and "compilat=False" not in script


def test_memoria_e_cresterea_pasului_plus_grupul_grafurilor_cuda():
    text, cod = markdown(CAPITOL), _cod()
    assert "max_memory_allocated()` minus `torch.cuda.memory_allocated()" in text
    assert "vârful memoriei" not in text + cod and "max_memory_allocated e doar" not in cod
    cod_si_modul = _cod_si_modul()
    assert "memorie_pas_mib" in cod_si_modul and "grafuri_cuda_mib" in cod_si_modul and "memorie_ceruta_mib" in cod_si_modul
    modul = MODUL.read_text(encoding="utf-8")
    assert "def crestere_memorie_mib" in modul and "segment_pool_id" in modul
    assert "memoria cerută" in text and "1 024 MiB" in text  # exercițiul 2, pe aceeași definiție


def test_pornirea_e_timpul_pana_la_regim_cu_ordine_alternata():
    text, cod = markdown(CAPITOL), _cod()
    assert "T(1..3) − 2 · timpul pe pas" in text and "capturează graful CUDA" in text
    assert "ordine_inversa=True" in cod and "existente=" not in cod
    assert "timp_pana_la_regim" in MODUL.read_text(encoding="utf-8")
    assert "Inferența se măsoară prima" in text
    # inferența e compilată înaintea antrenării, în aceeași celulă
    celula = next(c for c in _celule(CAPITOL, "code") if "moduri_antrenare = compara_moduri(" in c)
    assert celula.index("moduri_inferenta = compara_moduri(") < celula.index("moduri_antrenare = compara_moduri(")


def test_precizia_explicata_ca_in_capitolul_07_si_pragul_de_zgomot():
    text, cod = markdown(CAPITOL), _cod()
    assert "emulate_precision_casts" in text and "ține rezultatele intermediare în float32" in text
    assert "în bfloat16, cu câteva procente" not in text
    assert "ordinea diferită a rotunjirilor" not in cod
    assert "pragul de zgomot" in text and "plicul de zgomot" in text
    # plicul: cel puțin 3 rulări eager în precizie redusă, iar verdictul vine din el
    assert "RULARI_ZGOMOT" in cod and "PlicZgomot(" in cod and "plic.verdict(" in cod and "inregistreaza_precizia(" in cod
    assert antrenare.RULARI_ZGOMOT >= 3
    assert '"eager, a doua rulare"' not in cod and "concluzie_fata_de_prag(" not in cod


def test_mega_cache_incalzeste_compilatorul_in_procesul_nou():
    assert 'rezultat["incalzire_s"] = incalzeste_compilatorul(dispozitiv)' in CACHE.read_text(encoding="utf-8")
    text = markdown(CAPITOL)
    assert "fiecare proces importă compilatorul și îl încălzește" in text
    assert "plătește totuși pornirea Python, importurile și taxa primei compilări" not in text
    assert "06.megacache_rece_incalzit_s" in _cod_si_modul()


def test_decodarea_trece_peste_marginea_unei_galeti_pe_orice_profil():
    from curs_compilare.capitole.cap06_modelul_intreg import galeti_folosite

    cod = _cod()
    lungimi = re.search(r"LUNGIME_PROMPT, JETOANE_NOI = dimensiune\(gpu=\((\d+), (\d+)\), cpu=\((\d+), (\d+)\), rapid=\((\d+), (\d+)\)\)", cod)
    minime = re.search(r"MINIM_GALEATA = dimensiune\(gpu=(\d+), cpu=(\d+), rapid=(\d+)\)", cod)
    assert lungimi and minime
    maxime = (1024, 64, 16)  # lungimea secvențelor din configuratie_pentru_mediu: GPU, procesor, profilul rapid
    for profil, maxim in enumerate(maxime):
        prompt, noi = int(lungimi.group(2 * profil + 1)), int(lungimi.group(2 * profil + 2))
        assert prompt + noi - 1 <= maxim
        assert len(galeti_folosite(prompt, noi, int(minime.group(profil + 1)), maxim)) >= 2, profil
    text = markdown(CAPITOL)
    assert "rulează eager, în afara grafului" in text and "`argmax`" in text
    assert "06.decodare_eager_ms" not in _cod_si_modul() and "_pe_jeton_ms" in _cod_si_modul()


def test_modul_pasului_optimizatorului_numit_si_float16():
    text, cod = markdown(CAPITOL), _cod()
    assert "compilat o singură dată, în modul implicit" in text and "note_etichete(c)" in _cod_si_modul()
    assert "`scalare.unscale_`" in text and "PRECIZIE == torch.float16" in cod
    modul = MODUL.read_text(encoding="utf-8")
    assert "def pas_cu_scalare" in modul and "scalare.step(optimizator)\n" not in modul
    assert "`record_function`" in text  # avertismentul lui Dynamo, explicat


def test_limba_modulelor_capitolului():
    for cale in (MODUL, CACHE, VERIFICARI, SCRIPT, RADACINA / "curs_compilare" / "masurare_compilare.py"):
        sursa = cale.read_text(encoding="utf-8")
        for gresit in ("Compil-o", "aleatorul", "bucla fierbinte", "fierbinte"):
            assert gresit not in sursa, (cale.name, gresit)
        for sedila in ("\u015f", "\u015e", "\u0163", "\u0162"):
            assert sedila not in sursa, cale.name
    cod = _cod()
    assert "Prompt de {cifre.format_numar" not in cod and "jetoane, {cifre.cu_substantiv(PASI" not in cod


def test_numele_folosite_de_cifrele_de_pe_gpu_sunt_cele_din_notebook():
    """Cifrele de pe GPU (care nu rulează pe o mașină fără GPU) se înregistrează din unelte care caută
    formele lui AdamW și strategiile de decodare după nume: fiecare nume trebuie să fie chiar cel din
    notebook, iar fiecare unealtă folosită trebuie să existe în modul."""
    cod = _cod()
    for nume in list(antrenare.CHEI_FORME_ADAMW) + list(antrenare.CHEI_DECODARE):
        assert f'"{nume}"' in cod, nume
    for nume in re.findall(r"\b((?:tabel|grafic|inregistreaza)_\w+)\(", cod):
        assert hasattr(antrenare, nume), nume
