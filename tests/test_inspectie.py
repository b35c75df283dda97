"""Uneltele de inspecție: jurnale prinse, backend-uri care înregistrează, explicații, limite."""

import torch

from curs_compilare import inspectie


def _cu_print(x):
    y = torch.sin(x)
    print("salut")
    return torch.cos(y) + 1


def test_jurnal_prinde_recompilarile_fara_prefix():
    torch._dynamo.reset()
    f = torch.compile(lambda t: t * 2, backend="eager", dynamic=False)
    f(torch.randn(4))
    with inspectie.jurnal_torch(recompiles=True) as jurnal:
        f(torch.randn(5))
    torch._dynamo.reset()
    linii = jurnal.linii("Recompiling")
    assert linii and linii[0].startswith("Recompiling"), jurnal.text[:500]
    assert "size mismatch" in jurnal.text
    assert jurnal.fragment("Recompiling", 2)[0] == linii[0]
    assert jurnal.fragment("nu exista nicaieri") == []
    assert len(jurnal) >= 2


def test_jurnal_se_opreste_la_iesire():
    torch._dynamo.reset()
    with inspectie.jurnal_torch(recompiles=True):
        pass
    f = torch.compile(lambda t: t + 3, backend="eager", dynamic=False)
    f(torch.randn(2))
    with inspectie.jurnal_torch() as gol:
        f(torch.randn(3))
    torch._dynamo.reset()
    assert "Recompiling" not in gol.text


def test_backend_inregistrare_si_numarator():
    torch._dynamo.reset()
    backend = inspectie.BackendInregistrare()
    rezultat = torch.compile(_cu_print, backend=backend)(torch.zeros(3))
    torch.testing.assert_close(rezultat, torch.full((3,), 2.0))
    assert backend.operatii_pe_graf() == [1, 2]
    assert backend.tipuri_operatii(0)["sin"] == 1
    torch._dynamo.reset()
    numarator = inspectie.NumaratorCompilari()
    f = torch.compile(lambda t: t * 2, backend=numarator, dynamic=False)
    for n in (2, 3, 3, 4):
        f(torch.randn(n))
    torch._dynamo.reset()
    assert numarator.compilari == 3


def test_numarator_cu_inductor_da_rezultat_corect():
    torch._dynamo.reset()
    numarator = inspectie.NumaratorCompilari("inductor")
    x = torch.randn(8)
    torch.testing.assert_close(torch.compile(lambda t: torch.relu(t) * 2, backend=numarator)(x), torch.relu(x) * 2)
    torch._dynamo.reset()
    assert numarator.compilari == 1


def test_backend_aot_separa_inainte_si_inapoi():
    torch._dynamo.reset()
    aot = inspectie.BackendAOT()
    liniar = torch.nn.Linear(4, 3)
    torch.compile(liniar, backend=aot.backend)(torch.randn(2, 4)).sum().backward()
    torch._dynamo.reset()
    assert len(aot.grafuri_inainte) == 1 and len(aot.grafuri_inapoi) == 1
    assert liniar.weight.grad is not None
    assert inspectie.numara_operatii(aot.grafuri_inapoi[0]) >= 1


def test_explica_numara_si_traduce():
    explicatie = inspectie.explica(_cu_print, torch.randn(3))
    assert (explicatie.numar_grafuri, explicatie.numar_intreruperi) == (2, 1)
    assert explicatie.operatii_pe_graf == [1, 2]
    assert explicatie.categorii[0] != "alt motiv"
    assert "întrerupere 1" in str(explicatie)


def test_categorii_intreruperi():
    c = inspectie.categorie_intrerupere
    assert "disable" in c("Skip calling `torch.compiler.disable()`d function")
    assert ".item()" in c("Unsupported Tensor.item() call with capture_scalar_outputs=False")
    assert "ramificare" in c("generic_jump TensorVariable()")
    assert ".tolist()" in c("Tensor.tolist() with non-integer tensor")
    assert c("ceva complet nou") == "alt motiv"


def test_motiv_scurt():
    assert inspectie.motiv_scurt("Graph break ...\n\n  Motivul real\n detalii") == "Motivul real"
    assert len(inspectie.motiv_scurt("x" * 500, maxim=20)) == 20


def test_limita_recompilarilor_se_restaureaza():
    nume = inspectie.nume_limita_recompilari()
    vechi = getattr(torch._dynamo.config, nume)
    with inspectie.limita_recompilari(2) as folosit:
        assert folosit == nume and getattr(torch._dynamo.config, nume) == 2
    assert getattr(torch._dynamo.config, nume) == vechi


def test_jurnal_prinde_si_manipulatorii_legati_de_un_flux_fix():
    """Unele versiuni PyTorch leagă manipulatorii de fluxul stderr de la creare; și aceia trebuie prinși."""
    import io
    import logging
    import sys

    ecran = io.StringIO()
    stderr_vechi = sys.stderr
    sys.stderr = ecran  # „ecranul” de la crearea manipulatorului
    manipulator = logging.StreamHandler()
    jurnal_dynamo = logging.getLogger("torch._dynamo")
    jurnal_dynamo.addHandler(manipulator)
    try:
        with inspectie.jurnal_torch() as jurnal:
            jurnal_dynamo.warning("avertisment de test")
        assert "avertisment de test" in jurnal.text
        assert ecran.getvalue() == ""
        assert manipulator.stream is ecran  # fluxul vechi a fost pus la loc
        jurnal_dynamo.warning("după")
        assert "după" in ecran.getvalue()
    finally:
        jurnal_dynamo.removeHandler(manipulator)
        sys.stderr = stderr_vechi


def test_numaratorul_numara_si_rularile_grafurilor():
    """După limita de recompilări, o formă deja compilată rulează graful ei; una nouă, eager."""
    torch._dynamo.reset()
    numarator = inspectie.NumaratorCompilari()
    f = torch.compile(lambda t: t * 2, backend=numarator, dynamic=False)
    with inspectie.limita_recompilari(2), inspectie.jurnal_torch():
        for n in (2, 3, 4, 5):
            f(torch.randn(n))
        assert (numarator.compilari, numarator.rulari) == (2, 2)
        f(torch.randn(2))
        assert numarator.rulari == 3 and numarator.rulari_pe_graf == [2, 1]
        torch.testing.assert_close(f(torch.ones(5)), torch.full((5,), 2.0))
        assert numarator.rulari == 3
    torch._dynamo.reset()


def test_numaratorul_cu_inductor_numara_rularile():
    torch._dynamo.reset()
    numarator = inspectie.NumaratorCompilari("inductor")
    f = torch.compile(lambda t: torch.relu(t) + 1, backend=numarator)
    x = torch.randn(8)
    for _ in range(3):
        torch.testing.assert_close(f(x), torch.relu(x) + 1)
    torch._dynamo.reset()
    assert (numarator.compilari, numarator.rulari) == (1, 3)


def test_fara_comentariul():
    linie = "+- LAMBDA_GUARD: 2 <= L['x'].size()[0]  # return (x - x.mean())  # f.py:4"
    assert inspectie.fara_comentariul(linie) == "+- LAMBDA_GUARD: 2 <= L['x'].size()[0]"
    jurnal = inspectie.Jurnal(text=linie + "\n" + linie.replace("f.py:4", "g.py:9"))
    import contextlib
    import io

    tampon = io.StringIO()
    with contextlib.redirect_stdout(tampon):
        jurnal.afiseaza(contine="<=", fara_comentariu=True)
    assert tampon.getvalue() == "+- LAMBDA_GUARD: 2 <= L['x'].size()[0]\n"


def test_explica_recunoaste_print_din_explicatia_lui_dynamo():
    """Pe versiunile recente, prima linie a motivului e „Failed to trace builtin operator”;
    numele lui print apare abia în explicație."""
    explicatie = inspectie.explica(_cu_print, torch.randn(3))
    assert explicatie.categorii == ["print: efect secundar în afara grafului"]
