"""Capitolul 07: structura notebook-ului (ca în 00–05), uneltele pe care issue-ul le cere rulate
chiar rulează (raportul tlparse și dump-ul depyf apar pe disc și conțin ce spune textul), faptele
pe care se sprijină textul sunt verificate pe versiunea instalată, iar numerele tipărite trec prin
`curs_compilare.cifre`."""

import ast
import re

import nbformat
import pytest
import torch

from curs_compilare.capitole import cap07_diagnoza as diagnoza
from text_notebook import RADACINA, markdown, siruri_din_cod
from text_notebook import surse as _celule

CAPITOL = RADACINA / "notebooks" / "07_diagnoza_compilarii.ipynb"
SOLUTIE = RADACINA / "solutions" / "07_diagnoza_compilarii_solutii.ipynb"
CAPITOL_05 = RADACINA / "notebooks" / "05_reglare_automata_max_autotune.ipynb"


MODUL = RADACINA / "curs_compilare" / "capitole" / "cap07_diagnoza.py"


def _cod(cale=CAPITOL) -> str:
    return "\n".join(_celule(cale, "code"))


def _cod_si_modul() -> str:
    """Codul notebook-ului și sursa modulului capitolului, unde stau graficele, cifrele pentru raport
    și măsurarea trapelor de ieșire."""
    return _cod() + "\n" + MODUL.read_text(encoding="utf-8")


def _functii_din_notebook(*nume: str) -> dict:
    """Definițiile (def) cu numele date, luate din celulele de cod ale capitolului și executate
    într-un spațiu de nume cu `torch`."""
    spatiu = {"torch": torch}
    for sursa in _celule(CAPITOL, "code"):
        try:
            arbore = ast.parse(sursa)
        except SyntaxError:  # celulele cu %matplotlib
            continue
        for nod in arbore.body:
            if isinstance(nod, ast.FunctionDef) and nod.name in nume:
                exec(compile(ast.Module([nod], []), str(CAPITOL), "exec"), spatiu)
    lipsa = [n for n in nume if n not in spatiu]
    assert not lipsa, f"lipsesc din capitol: {lipsa}"
    return spatiu


# --- structura --------------------------------------------------------------------------------


def test_structura_ca_in_celelalte_capitole():
    celule = nbformat.read(CAPITOL, as_version=4).cells
    assert celule[0].cell_type == "markdown" and celule[0].source.startswith("# 07 · ")
    assert "colab.research.google.com/github/" in celule[0].source and "07_diagnoza_compilarii.ipynb" in celule[0].source
    for fragment in ("**Durată estimată:**", "**Cerințe preliminare:**", "**Ce vei face:**"):
        assert fragment in celule[0].source
    # celula de pregătire, identică
    assert celule[1].source == nbformat.read(CAPITOL_05, as_version=4).cells[1].source
    titluri = re.findall(r"^## (.+)$", markdown(CAPITOL), flags=re.M)
    for n in range(1, 7):
        assert any(t.startswith(f"{n}. ") for t in titluri), f"lipsește secțiunea {n}"
    for n in range(1, 5):
        assert any(t.startswith(f"Exercițiul {n} ") for t in titluri), f"lipsește exercițiul {n}"
    assert titluri[-1] == "Ce ai învățat"
    assert "bucătar" in markdown(CAPITOL).lower()


def test_notebookul_nu_are_iesiri():
    for celula in nbformat.read(CAPITOL, as_version=4).cells:
        if celula.cell_type == "code":
            assert not celula.outputs and celula.execution_count is None


def test_exercitiile_au_stub_si_verificare():
    cod = _celule(CAPITOL, "code")
    assert any("from curs_compilare.exercitii import cap07 as verificari" in s for s in cod)
    for n in range(1, 5):
        celule = [s for s in cod if f"verificari.exercitiul_{n}(" in s]
        assert celule, f"exercițiul {n} nu e verificat"
        assert any("raise NotImplementedError" in s for s in celule), f"exercițiul {n} nu are stub"
    ex3 = next(s for s in cod if "verificari.exercitiul_3(" in s)
    assert 'etape=("eager", "aot_eager", "aot_eager_decomp_partition", "inductor")' in ex3
    for exemplu in ("verificari.FiltruCuPrag", "verificari.kernel_exercitiul_2", "verificari.bucla_lenta"):
        assert exemplu in _cod() + markdown(CAPITOL), exemplu


def test_uneltele_cerute_de_issue_ruleaza_in_notebook():
    cod = _cod()
    for unealta in (
        "recompiles_verbose=True", "guards=True", "perf_hints=True", "fusion=True", "graph_sizes=True", "output_code=True",
        "diagnoza.urma_torch_trace(", "diagnoza.ruleaza_tlparse(", "FileLink(", "diagnoza.dump_depyf(",
        "diagnoza.timpi_compilare(", "diagnoza.urma_profiler(", "diagnoza.regiuni_compilate(",
        "diagnoza.compara_etape(", "diagnoza.bisecteaza_compilatorul(", "fallback_random=True",
        "torch.library.triton_op(", "torch.library.wrap_triton(", "torch.library.custom_op(", "register_fake",
        "torch.cond(", "capture_scalar_outputs=True", "torch.compiler.disable(", "allow_in_graph(", "nonstrict_trace",
        "mark_unbacked", "maybe_mark_dynamic", "bfloat16", "diagnoza.arata_harta()",
        "concluzie_accelerare(", "compara(",
    ):
        assert unealta in cod, unealta


def test_ce_scriu_uneltele_merge_in_build_nu_in_notebooks():
    cod = _cod()
    assert 'DOSAR = RADACINA / "build" / "cap07"' in cod
    scriu = {"urma_torch_trace", "ruleaza_tlparse", "dump_depyf", "urma_profiler"}
    gasite = 0
    for sursa in _celule(CAPITOL, "code"):
        if sursa.startswith("#") and "%matplotlib" in sursa:
            continue
        for nod in ast.walk(ast.parse(sursa)):
            if isinstance(nod, ast.Call) and isinstance(nod.func, ast.Attribute) and nod.func.attr in scriu:
                gasite += 1
                assert "DOSAR" in ast.unparse(nod.args[-1] if nod.args else nod), ast.unparse(nod)[:120]
    assert gasite >= 8


def test_ce_urmeaza_are_legaturi_vii():
    ce_am_invatat = markdown(CAPITOL).split("## Ce ai învățat", 1)[1]
    for legatura in re.findall(r"\]\(([\w.-]+\.ipynb)\)", ce_am_invatat):
        assert (CAPITOL.parent / legatura).is_file(), f"legătură moartă: {legatura}"


# --- numere și terminologie -------------------------------------------------------------------


def test_numerele_tiparite_trec_prin_cifre():
    cod = _cod()
    for format_interzis in (r":[<>^]?\d*\.\d+f\}", r":\d*\.?\d*%\}", r":\d*\.?\d*g\}", r":,\}"):
        assert not re.search(format_interzis, cod), f"număr formatat de mână ({format_interzis}): folosește curs_compilare.cifre"
    assert "plt.show()" not in cod, "graficele se afișează cu grafice.arata()"


def test_terminologia_ghidului():
    text = markdown(CAPITOL) + "\n" + "\n".join(siruri_din_cod(CAPITOL))
    for gresit, corect in (
        (r"\bapelar(?:e|ea|ii)\b|\bapelări", "apel / apeluri / primul apel"),
        (r"[îÎ]nmulțir(?:e|i) de matrice", "produs de matrice"),
        (r"\bvs\.?\b", "față de"),
        (r"dintr-odată", "dintr-o dată"),
        (r"\bnoastr|\bnostru\b|\bvom\b", "persoana a II-a singular"),
    ):
        gasite = re.findall(rf".{{0,30}}(?:{gresit}).{{0,20}}", text)
        assert not gasite, f"scrie „{corect}”: {gasite}"
    assert not re.search("[\u015f\u015e\u0163\u0162]", text), "ș și ț cu virgulă, nu cu sedilă"


# --- uneltele, pe exemplele capitolului -------------------------------------------------------


def test_raportul_tlparse_pe_exemplul_sectiunii_1(tmp_path):
    """Exemplul stricat al secțiunii 1, compilat ca în capitol (aici cu backend-ul „eager”, ca
    testul să fie scurt): raportul tlparse are trei compilări și motivul recompilării pe pondere,
    cum spune textul."""
    scor = _functii_din_notebook("scor")["scor"]
    x, w = torch.randn(8, 32), torch.randn(32, 32) / 6
    compilat = torch.compile(scor, backend="eager")
    jurnal = diagnoza.urma_torch_trace(lambda: [compilat(x, w, p) for p in (1, 2, 3)], tmp_path / "urma")
    raport = diagnoza.ruleaza_tlparse(jurnal, tmp_path / "tlparse")
    assert raport.exista, raport.mesaj
    assert {"[0/0]", "[0/1]", "[1/0]"} <= set(raport.compilari())
    assert any("pondere == 1" in m for m in raport.motive_recompilare())
    assert raport.fisiere("dynamo_output_graph") and raport.fisiere("dynamo_cpp_guards_str")
    text = markdown(CAPITOL)
    assert "`[0/0]`" in text and "`[0/1]`" in text and "`[1/0]`" in text


def test_dumpul_depyf_pe_exemplul_sectiunii_1(tmp_path):
    scor = _functii_din_notebook("scor_fara_ramificare")["scor_fara_ramificare"]
    x, w = torch.randn(8, 32), torch.randn(32, 32) / 6
    dump = diagnoza.dump_depyf(lambda: torch.compile(scor, backend="eager")(x, w, 1), tmp_path / "depyf")
    nume = [p.name for p in dump.fisiere()]
    assert any(n.startswith("full_code_for_scor_fara_ramificare") for n in nume), nume
    assert "L['pondere'] == 1" in dump.garzi()
    assert "__compiled_fn_" in dump.functie_din_cod("__transformed_code_")
    assert "y: \"f32[8, 32]\" = tanh * 1" in dump.graf(), "textul spune că ponderea e în graf ca o constantă (`y = tanh * 1`)"


def test_dosarul_build_dupa_rularea_notebookului():
    """După ce notebook-ul a rulat (nbval, `make test`), fișierele lui sunt în build/cap07."""
    dosar = RADACINA / "build" / "cap07"
    if not (dosar / "tlparse" / "index.html").exists():
        pytest.skip("notebook-ul capitolului 07 n-a rulat încă pe mașina asta")
    raport = diagnoza.RaportTlparse(dosar / "tlparse", dosar / "tlparse" / "index.html")
    assert {"[0/0]", "[0/1]", "[1/0]"} <= set(raport.compilari())
    assert raport.fisiere("inductor_output_code"), "raportul capitolului e compilat cu Inductor"
    dump = diagnoza.DumpDepyf(dosar / "depyf")
    assert "L['pondere'] == 1" in dump.garzi()
    assert diagnoza.regiuni_compilate(dosar / "urma_compilat.json")
    assert diagnoza.regiuni_compilate(dosar / "urma_eager.json") == []


# --- faptele din text, pe versiunea instalată ---------------------------------------------------


def _compilari(functie, apeluri):
    from curs_compilare.inspectie import NumaratorCompilari

    torch._dynamo.reset()
    numarator = NumaratorCompilari("eager")
    compilat = torch.compile(functie, backend=numarator)
    for apel in apeluri:
        apel(compilat)
    return numarator.compilari


def test_fapt_intregul_din_range_recompileaza_la_fiecare_valoare():
    spatiu = _functii_din_notebook("repeta", "pas_repetat")
    v = torch.randn(4)
    assert _compilari(spatiu["repeta"], [lambda f, n=n: f(v, n) for n in range(1, 5)]) == 4
    assert _compilari(spatiu["pas_repetat"], [lambda f: f(v)] * 4) == 1


def test_fapt_atributul_int_al_modulului_recompileaza_floatul_doar_o_data():
    assert torch._dynamo.config.allow_unspec_int_on_nn_module is False
    assert torch._dynamo.config.specialize_float is False

    class Modul(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.k = 1

        def forward(self, x):
            return x * self.k

    modul = Modul()
    v = torch.randn(4)

    def seteaza(valoare):
        modul.k = valoare

    assert _compilari(modul, [lambda f, k=k: (seteaza(k), f(v)) for k in (1, 2, 3, 4)]) == 4
    assert _compilari(modul, [lambda f, k=k: (seteaza(k), f(v)) for k in (0.5, 1.5, 2.5, 3.5)]) == 2


def test_fapt_mark_unbacked_scapa_de_specializarea_0_1():
    def dublu(x):
        return x * 2

    def marcat(n):
        t = torch.randn(n)
        torch._dynamo.decorators.mark_unbacked(t, 0)
        return t

    assert _compilari(dublu, [lambda f, n=n: f(torch.randn(n)) for n in (4, 5, 1, 6, 0, 7)]) == 4
    assert _compilari(dublu, [lambda f, n=n: f(marcat(n)) for n in (4, 5, 1, 6, 0, 7)]) == 1


def test_fapt_compilerbisector_gaseste_fallback_random():
    """Textul secțiunii 5.2: bisectorul ajunge la `inductor_fallback_random`. Subsistemul există
    în lista bisectorului (și în torch 2.11, cu aceeași interfață `do_bisect`)."""
    from torch._inductor.compiler_bisector import BACKENDS, CompilerBisector

    assert hasattr(CompilerBisector, "do_bisect")
    assert list(BACKENDS)[:3] == ["eager", "aot_eager", "aot_eager_decomp_partition"] and "inductor" in BACKENDS
    assert "inductor_fallback_random" in [s.name for s in BACKENDS["inductor"]]
    assert "inductor_fallback_random" in markdown(CAPITOL)


def test_fapt_regiunile_compilate_se_numesc_ca_in_text():
    import inspect

    from torch._dynamo import convert_frame

    assert '"Torch-Compiled Region: "' in inspect.getsource(convert_frame)
    assert "Torch-Compiled Region" in markdown(CAPITOL)


# --- faptele corectate la revizie (să nu revină) -------------------------------------------------


def test_revizie_faptele_din_text_se_potrivesc_cu_sursa():
    """Afirmații corectate la revizia capitolului, fiecare legată de sursa PyTorch instalată."""
    import inspect

    import torch._dynamo.guards as garzi
    import torch._inductor.cudagraph_utils as cudagraph_utils

    text = markdown(CAPITOL)
    # Nodul din graful capturat poartă numele variabilei (`y`), nu `mul`.
    assert "`y = tanh * 1`" in text and "`mul = tanh * 1`" not in text
    # „Guard eval latency” se măsoară o singură dată, la construirea gărzilor (n_iters=1).
    assert "profile_guard_manager" in inspect.getsource(garzi) and "măsurată o singură dată" in text
    # În torch 2.14, motivele pentru care grafurile CUDA sunt ocolite merg în categoria `cudagraphs`.
    assert "cudagraphs_log.warning(msg)" in inspect.getsource(cudagraph_utils.log_cudagraph_skip_and_bump_counter)
    assert "perf_hints,cudagraphs" in text
    # Minifier-ul scrie întâi `minifier_launcher.py`; `repro.py` apare abia după ce îl rulezi.
    assert "minifier_launcher.py" in text
    # Garda din cazul „int în range(n)” e pe `pasi`, numele argumentului din `repeta`.
    assert "`pasi == …`" in text and "`n == …`" not in text


# --- revizia din issue-ul 21: cauze, baze de comparație, versiuni, uneltele expertului ------------


def _apeluri_concluzie(cale=CAPITOL):
    """Apelurile lui `concluzie_accelerare` din celulele de cod ale capitolului și din modulul lui."""
    apeluri = []
    for sursa in _celule(cale, "code") + [MODUL.read_text(encoding="utf-8")]:
        if "%matplotlib" in sursa:
            continue
        for nod in ast.walk(ast.parse(sursa)):
            if isinstance(nod, ast.Call) and getattr(nod.func, "id", None) == "concluzie_accelerare":
                apeluri.append(nod)
    return apeluri


def test_cauza_spusa_depinde_de_ce_se_compara():
    """O concluzie „mai lent” nu pune pe seama gărzilor o diferență dintre două variante de cod (de
    exemplu `allow_in_graph` față de varianta care se rupe, cu mai puține grafuri): fiecare apel care
    nu compară o variantă compilată cu același cod eager dă `cauza=` sau `ce_se_compara=`."""
    apeluri = _apeluri_concluzie()
    assert len(apeluri) >= 6
    for apel in apeluri:
        numite = {k.arg: k.value for k in apel.keywords}
        if "cauza" in numite or "ce_se_compara" in numite:
            continue
        referinta = numite.get("referinta")
        assert referinta is None or ast.literal_eval(referinta) in ("cea eager", "aceeași variantă în modul eager"), ast.unparse(apel)
    cod = _cod_si_modul()
    assert 'ce_se_compara="variante", grafuri=(grafuri[varianta], grafuri[referinta])' in cod
    assert cod.count("concluzie_trapa(") >= 4


def test_pasul_reparat_e_comparat_si_cu_eager_reparat():
    cod = _cod()
    assert '"eager, reparat": pas_reparat' in cod and '"compilat, reparat": pas_reparat_compilat' in cod
    assert 'comparatie.accelerare("eager, reparat", "compilat, reparat")' in cod
    assert "nu e cea mai rapidă dintre cele patru" in _cod_si_modul()  # propoziția de sub grafic, din cifre
    assert "07.pas_reparat_fata_de_eager_reparat" in _cod_si_modul()
    text = markdown(CAPITOL)
    assert "**Baza de comparație.**" in text and "fused=True" in text and "capturable=True" in text


def test_latenta_garzilor_e_o_cifra_la_rece():
    import inspect

    import torch._dynamo.guards as garzi

    sursa = inspect.getsource(garzi)
    assert "profile_guard_manager(" in sursa and "output_graph.local_scope, 1" in sursa  # n_iters = 1
    text = markdown(CAPITOL)
    assert "o cifră la rece, nu costul fiecărui apel" in text
    assert "aproximativ cât plătești la fiecare apel" not in text
    assert "diagnoza.cost_garzi(" in _cod()


def test_observatiile_de_versiune_sunt_adevarate_pe_2_11_si_2_14():
    """`graph_sizes` nu mai scrie nimic nici în torch 2.11 (verificat pe un H200), nici în 2.14: textul
    nu mai spune „torch 2.14 nu mai tipărește”, iar celula spune ce a scris versiunea cursantului."""
    import inspect

    import torch._dynamo.output_graph as output_graph

    assert "graph_sizes_log.debug" not in inspect.getsource(output_graph)
    text = markdown(CAPITOL)
    assert "torch 2.14 nu mai tipărește" not in text
    assert "în torch 2.11 și 2.14 categoria există, dar Dynamo nu mai scrie nimic în ea" in text
    assert "torch.__version__" in _cod()
    assert "în torch 2.11 și 2.14, motivul apare la `cudagraphs`" in text


def test_uneltele_expertului_exista_pe_versiunea_instalata():
    cod, text = _cod(), markdown(CAPITOL)
    for unealta in ("torch.library.opcheck(", "register_autograd(", 'set_stance("force_eager")',
                    "torch.compiler.nested_compile_region(", "torch._check(", "torch.compiler.allow_in_graph("):
        assert unealta in cod, unealta
    for nume in ("cudagraph_skip_dynamic_graphs", "cudagraph_dynamic_shape_warn_limit"):
        assert hasattr(torch._inductor.config.triton, nume) and nume in text
    assert callable(torch.compiler.nested_compile_region) and callable(torch.library.opcheck)
    assert hasattr(torch, "_check") and hasattr(torch, "_check_is_size")
    # nonstrict_trace: numele public în torch 2.14, doar cel din torch._dynamo în 2.11 (verificat pe un H200)
    assert 'getattr(torch.compiler, "nonstrict_trace", None) or getattr(torch._dynamo, "nonstrict_trace", None)' in cod
    assert hasattr(torch._dynamo, "nonstrict_trace")
    if tuple(int(p) for p in torch.__version__.split("+")[0].split(".")[:2]) >= (2, 14):
        assert hasattr(torch.compiler, "nonstrict_trace")
    assert "în torch 2.11 lipsește" in text


def test_restrictiile_lui_torch_cond_pe_versiunea_instalata():
    """Tipuri diferite în ramuri: refuzat; forme diferite: acceptate (dimensiunea devine simbolică);
    mutația intrării cu gradienții activi: refuzată."""
    x = torch.randn(8, 4)
    torch._dynamo.reset()
    with pytest.raises(Exception, match="expected same dtype"):
        torch.compile(lambda t: torch.cond(t.sum() > 0, lambda u: u.double() * 2, lambda u: u * 3, (t,)),
                      backend="eager", fullgraph=True)(x)
    torch._dynamo.reset()
    rezultat = torch.compile(lambda t: torch.cond(t.sum() > 0, lambda u: (u * 2)[:2], lambda u: u * 3, (t,)),
                             backend="eager", fullgraph=True)(x)
    assert rezultat.shape[1] == 4

    def modifica(u):
        u.add_(1)
        return u.clone()

    torch._dynamo.reset()
    with pytest.raises(Exception, match="mutation"):
        torch.compile(lambda t: torch.cond(t.sum() > 0, modifica, lambda u: u.clone(), (t,)),
                      backend="eager", fullgraph=True)(x.clone())
    torch._dynamo.reset()
    assert "formele pot diferi" in markdown(CAPITOL)


def test_avertismentul_zlib_e_prins_si_spus_in_romana():
    cod = _cod_si_modul()
    assert "avertismente_dynamo() as avertismente:" in cod
    assert "Avertismentul lui Dynamo, pe scurt:" in cod


def test_premisa_exercitiului_4_in_text():
    from curs_compilare.exercitii import cap07

    import inspect

    sursa = inspect.getsource(cap07._pas_cu_intreruperi)
    assert sursa.count(".item()") >= 2 and "math.isfinite" in sursa
    cod = _cod()
    assert "cauza=f\"fiecare pas trece prin" in cod and "regiuni_pas" in cod


def test_fara_calcurile_si_greselile_gasite_la_revizie():
    """„aleatorul”, „bucla fierbinte”, „Compil-o”, „pașii” pentru *strides*: în notebook, soluții și
    modulele capitolului."""
    from pathlib import Path

    texte = [markdown(CAPITOL), "\n".join(siruri_din_cod(CAPITOL)), markdown(SOLUTIE)]
    for modul in ("curs_compilare/exercitii/cap07.py", "curs_compilare/capitole/cap07_diagnoza.py", "curs_compilare/concluzii.py",
                  "curs_compilare/masurare.py"):
        texte.append((RADACINA / modul).read_text(encoding="utf-8"))
    for text in texte:
        for gresit in (r"\baleatorul\b", r"bucla fierbinte", r"Compil-o", r"pașii și dispozitivul", r"\d de jetoane"):
            assert not re.search(gresit, text), gresit


def test_uneltele_folosite_de_capitol_exista_in_modul():
    """Ramurile de GPU nu rulează pe o mașină fără GPU: fiecare `diagnoza.<nume>` din capitol trebuie să
    existe în modul, ca un nume greșit să nu apară abia pe GPU-ul clasei."""
    for nume in set(re.findall(r"\bdiagnoza\.(\w+)", _cod())):
        assert hasattr(diagnoza, nume), nume
